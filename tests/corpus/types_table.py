"""The documentation's table of resource types used in the shared corpus, with what hotc does with each.

    python -m tests.corpus.types_table            print the table
    python -m tests.corpus.types_table --write    rewrite it in docs/reference/corpus-types.md (between the markers)

``tests/corpus/test_types_table.py`` fails when that page's table is not what this prints, so the table always
says what the code does.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import yaml

from tests.corpus.corpus import find_corpus, read_verdicts

REPO = Path(__file__).resolve().parents[2]
START, END = "<!-- corpus-types:start -->", "<!-- corpus-types:end -->"
#: the documentation page that holds the table
PAGE = REPO / "docs" / "reference" / "corpus-types.md"


def corpus_type_counts(corpus: Path) -> Counter[str]:
    """Templates of the corpus using each built-in-looking type (``OS::``/``AWS::`` names)."""
    counts: Counter[str] = Counter()
    for path in sorted({r.path for r in read_verdicts(corpus)}):
        try:
            doc = yaml.safe_load((corpus / path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue
        resources = doc.get("resources") if isinstance(doc, dict) else None
        if not isinstance(resources, dict):
            continue
        types = {
            r.get("type")
            for r in resources.values()
            if isinstance(r, dict)
            and isinstance(r.get("type"), str)
            and r["type"].startswith(("OS::", "AWS::"))
        }
        counts.update(t for t in types if isinstance(t, str))
    return counts


def status(type_name: str) -> str:
    from hotc.parser.environment import GLOBAL_REGISTRY
    from hotc.providers.drivers import support_problem
    from hotc.providers.registry import get_schema

    alias_of = GLOBAL_REGISTRY.get(type_name)
    if alias_of is not None and "::" in alias_of:  # an old name Heat's global environment maps to a type
        return f"an alias of `{alias_of}`: {status(alias_of)}"
    groups = {"OS::Heat::ResourceGroup", "OS::Heat::AutoScalingGroup"}
    if type_name in groups:
        return "supported (expanded into its members)"
    problem = support_problem(type_name)
    schema = get_schema(type_name)
    if (
        problem is None
        and schema is not None
        and schema.support == "hidden"
        and schema.accepts_any_properties
    ):
        return "supported as Heat 27 has it: a hidden placeholder that makes nothing (as `OS::Heat::None`)"
    if problem is None:
        return "supported"
    if schema is None:
        return f"refused at plan time: {problem} (validated as Heat does, no property schema)"
    return f"planned, refused by apply at plan time: {problem}"


#: Types real templates use beyond the corpus (each service's commonly used types): those the corpus does not
#: use get a second table, so each one says whether it is supported, planned only or refused, and why.
MORE_TYPES = (
    "OS::Nova::ServerGroup",
    *(f"OS::Cinder::{t}" for t in ("VolumeType", "EncryptedVolumeType", "QoSSpecs", "QoSAssociation")),
    "OS::Heat::DeployedServer",
    *(
        f"OS::Neutron::{t}"
        for t in (
            "RouterGateway",
            "QoSPolicy",
            "QoSBandwidthLimitRule",
            "QoSDscpMarkingRule",
            "QoSMinimumBandwidthRule",
            "QoSMinimumPacketRateRule",
            "Trunk",
            "SubnetPool",
            "AddressScope",
            "ProviderNet",
        )
    ),
    *(f"OS::Octavia::{t}" for t in ("L7Policy", "L7Rule", "Flavor", "FlavorProfile")),
    *(
        f"OS::Keystone::{t}"
        for t in ("Project", "User", "Group", "Role", "UserRoleAssignment", "GroupRoleAssignment")
    ),
    *(
        f"OS::Aodh::{t}"
        for t in (
            "Alarm",
            "EventAlarm",
            "CompositeAlarm",
            "LBMemberHealthAlarm",
            "PrometheusAlarm",
            "GnocchiResourcesAlarm",
            "GnocchiAggregationByMetricsAlarm",
            "GnocchiAggregationByResourcesAlarm",
        )
    ),
    *(f"OS::Mistral::{t}" for t in ("Workflow", "CronTrigger", "ExternalResource")),
    *(f"OS::Designate::{t}" for t in ("Zone", "RecordSet", "Domain", "Record")),
    *(
        f"OS::Barbican::{t}"
        for t in ("Secret", "Order", "GenericContainer", "CertificateContainer", "RSAContainer")
    ),
    *(f"OS::Manila::{t}" for t in ("Share", "ShareNetwork", "ShareType", "SecurityService")),
)


def render(corpus: Path) -> str:
    counts = corpus_type_counts(corpus)
    lines = ["| type | templates | what hotc does |", "|---|---:|---|"]
    for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"| `{name}` | {n} | {status(name)} |")
    rest = [t for t in MORE_TYPES if t not in counts]
    if rest:
        lines += ["", "Other types real templates use, which the corpus does not:", ""]
        lines += ["| type | what hotc does |", "|---|---|"]
        lines += [f"| `{name}` | {status(name)} |" for name in rest]
    return "\n".join(lines) + "\n"


def readme_table(readme: str) -> str | None:
    if START not in readme or END not in readme:
        return None
    return readme.split(START, 1)[1].split(END, 1)[0].strip("\n") + "\n"


def main() -> None:
    corpus = find_corpus()
    if corpus is None:
        sys.exit("the shared corpus was not found (set HOTC_CORPUS)")
    table = render(corpus)
    if "--write" not in sys.argv:
        sys.stdout.write(table)
        return
    path = PAGE
    text = path.read_text(encoding="utf-8")
    if readme_table(text) is None:
        sys.exit(f"{PAGE} has no {START} ... {END} section")
    head, rest = text.split(START, 1)
    tail = rest.split(END, 1)[1]
    path.write_text(f"{head}{START}\n{table}{END}{tail}", encoding="utf-8")


if __name__ == "__main__":
    main()
