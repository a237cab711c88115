"""Benchmark: parse + evaluate the properties of a generated N-resource template (default 10,000).

Prints resources/s for expression parsing (hotc.parser.expr.parse_expr) and static evaluation
(hotc.parser.evaluate.evaluate). Run: python bench/bench_eval.py [N]
"""

from __future__ import annotations

import sys
import time

from hotc.parser.evaluate import UnknownResources, evaluate
from hotc.parser.expr import parse_expr
from hotc.parser.ir import EvalContext
from hotc.parser.versions import version_named
from hotc.parser.yamlload import load_document


def generate(n: int) -> str:
    lines = [
        "heat_template_version: rocky",
        "parameters:",
        "  image: {type: string, default: cirros}",
        "  flavor: {type: string, default: m1.tiny}",
        "  net: {type: string, default: private}",
        "resources:",
    ]
    for i in range(n):
        lines += [
            f"  port{i}:",
            "    type: OS::Neutron::Port",
            "    properties:",
            "      network: {get_param: net}",
            f"      name: {{list_join: ['-', [{{get_param: 'OS::stack_name'}}, port{i}]]}}",
            f"  server{i}:",
            "    type: OS::Nova::Server",
            "    properties:",
            "      image: {get_param: image}",
            "      flavor: {get_param: flavor}",
            f"      networks: [{{port: {{get_resource: port{i}}}}}]",
            "      user_data:",
            "        str_replace:",
            "          template: 'echo $ADDR > /tmp/addr'",
            f"          params: {{$ADDR: {{get_attr: [port{i}, fixed_ips, 0, ip_address]}}}}",
            "      metadata: {role: web, index: " + str(i) + "}",
        ]
    return "\n".join(lines) + "\n"


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    n_res = n * 2
    text = generate(n)
    t0 = time.perf_counter()
    doc, _ = load_document(text, "bench.yaml", max_size=None)
    t1 = time.perf_counter()
    assert doc is not None
    version = version_named("rocky")
    exprs = []
    for _name, res in doc["resources"].items():
        expr, diags = parse_expr(res["properties"], version, where="properties")
        assert not diags, diags
        exprs.append(expr)
    t2 = time.perf_counter()
    ctx = EvalContext(
        version=version,
        parameters={"image": "cirros", "flavor": "m1.tiny", "net": "private", "OS::stack_name": "bench"},
        resolver=UnknownResources(),
    )
    for expr in exprs:
        evaluate(expr, ctx)
    t3 = time.perf_counter()
    print(f"resources: {n_res}")
    print(f"YAML load (lead's loader): {t1 - t0:.3f} s")
    print(f"parse_expr: {t2 - t1:.3f} s ({n_res / (t2 - t1):,.0f} resources/s)")
    print(f"evaluate:   {t3 - t2:.3f} s ({n_res / (t3 - t2):,.0f} resources/s)")


if __name__ == "__main__":
    main()
