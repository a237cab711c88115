"""HOT205: a key pair's private key is kept by Heat and readable as an attribute."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, cannot_tell, finding
from hotc.lint.view import ResourceView, unknown


def check(res: ResourceView) -> Iterator[Outcome]:
    if res.get("public_key", None) not in (None, ""):
        return  # an imported key: Nova generates nothing, there is no private key to keep
    value = res.get("save_private_key", False)
    where = res.pos_at("save_private_key")
    if unknown(value):
        yield cannot_tell("save_private_key is not known before apply", where)
    elif value is True:
        yield finding(
            "save_private_key: true: the generated private key is stored with the stack and readable by anyone "
            "who can read it (the private_key attribute)",
            where,
        )


RULE = Rule(
    id="HOT205",
    name="KeyPairPrivateKeySaved",
    severity=Level.MEDIUM,
    title="Generated private key saved with the stack",
    types=("OS::Nova::KeyPair",),
    rationale=(
        "With save_private_key Heat (and hotc's state) keep the private half of a generated key pair; every "
        "reader of the stack, of its outputs and of the state backend can log in to the servers using it."
    ),
    fix="Generate the key pair outside the stack and give its public_key (or an existing key_name).",
    good="""
heat_template_version: 2018-08-31
parameters:
  public_key: {type: string, default: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGv7 ops"}
resources:
  key:
    type: OS::Nova::KeyPair
    properties: {name: ops, public_key: {get_param: public_key}}
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  key:
    type: OS::Nova::KeyPair
    properties: {name: ops, save_private_key: true}
""",
    check_resource=check,
)
