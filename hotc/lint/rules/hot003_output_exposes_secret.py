"""HOT003: an output shows a secret (a hidden parameter, a private key, a generated password)."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, cannot_tell, finding
from hotc.lint.rules._common import secret_name
from hotc.lint.view import TemplateView
from hotc.parser.api import Expr, FunctionCall, ListExpr, Literal, MapExpr

SECRET_ATTRIBUTES = {
    "OS::Nova::KeyPair": ("private_key",),
    "OS::Barbican::Order": ("private_key",),
    "OS::Barbican::Secret": ("decrypted_payload",),
    "OS::Heat::RandomString": ("value",),
    # a signal handle's token (and the curl command or URL holding it) lets anyone signal the stack
    "OS::Heat::WaitConditionHandle": ("token", "curl_cli"),
    "OS::Heat::SwiftSignalHandle": ("token", "curl_cli", "endpoint"),
}


#: functions whose result is not the secret they read (a hash), or may or may not be (a yaql expression)
DIGESTS = ("digest",)
TRANSFORMS = ("yaql",)


def _secrets(view: TemplateView, expr: Expr | None) -> list[tuple[str, bool]]:
    """``(what, through_transform)`` for each secret the expression reads."""
    out: list[tuple[str, bool]] = []
    stack: list[tuple[Expr, bool]] = [(expr, False)] if expr is not None else []
    while stack:
        node, through = stack.pop()
        if isinstance(node, ListExpr):
            stack.extend((item, through) for item in node.items)
        elif isinstance(node, MapExpr):
            stack.extend((v, through) for _, v in node.items)
        elif isinstance(node, FunctionCall):
            if node.name in DIGESTS:
                continue
            if node.name == "get_param":
                static = getattr(node, "static_name", None)
                name = static() if callable(static) else None
                param = view.template.parameters.get(name) if isinstance(name, str) else None
                if param is not None and param.hidden:
                    out.append((f"hidden parameter {name}", through))
            elif node.name == "get_attr":
                res, attr = getattr(node, "resource", None), getattr(node, "attribute", None)
                if isinstance(res, Literal) and isinstance(attr, Literal):
                    tr = view.types.get(str(res.value))
                    if (
                        tr is not None
                        and attr.value in SECRET_ATTRIBUTES.get(tr.type_name, ())
                        # a random string is a secret when it is named like one (many are name suffixes)
                        and (tr.type_name != "OS::Heat::RandomString" or secret_name(str(res.value)))
                    ):
                        out.append((f"{attr.value} of {res.value} ({tr.type_name})", through))
            inner = through or node.name in TRANSFORMS
            stack.extend((child, inner) for child in node.children())
    return out


def check(view: TemplateView) -> Iterator[Outcome]:
    if view.nested:
        return  # a nested template's outputs are how it hands values to its parent
    for name, output in view.template.outputs.items():
        found = _secrets(view, output.value)
        direct = [what for what, through in found if not through]
        if direct:
            yield finding(
                f"output {name} shows {', '.join(dict.fromkeys(direct))}: outputs are listed by stack show and "
                "output-show to every reader of the stack",
                output.pos,
                name,
            )
        elif found:
            yield cannot_tell(
                f"output {name} computes a value from {', '.join(dict.fromkeys(w for w, _ in found))} with yaql: "
                "whether it shows the secret depends on the expression",
                output.pos,
                name,
            )


RULE = Rule(
    id="HOT003",
    name="OutputExposesSecret",
    severity=Level.MEDIUM,
    title="Output shows a secret",
    types=(),
    rationale=(
        "Heat shows outputs to everyone who can read the stack and stores them unmasked; an output of a hidden "
        "parameter, a generated private key or password, or a decrypted Barbican payload undoes the care taken "
        "elsewhere."
    ),
    fix=(
        "Output a reference instead (the Barbican secret's href, the key pair's name), or hand the secret to "
        "the consumer directly (a software deployment input)."
    ),
    good="""
heat_template_version: 2018-08-31
resources:
  key:
    type: OS::Nova::KeyPair
    properties: {name: ops, save_private_key: false}
outputs:
  key_name:
    value: {get_resource: key}
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  db_password:
    type: OS::Heat::RandomString
outputs:
  password:
    value: {get_attr: [db_password, value]}
""",
    check_template=check,
)
