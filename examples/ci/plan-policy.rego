# OPA / conftest policy over hotc's plan JSON (hotc plan --format json, hotc show PLANFILE --format json).
#   conftest test --parser json --namespace hotc.plan hotc-out/plan.show.json
#   opa eval -i hotc-out/plan.show.json -d plan-policy.rego 'data.hotc.plan.deny'
# The document's fields are described by hotc/planner/plan.schema.json. hotc's own gate (--policy-file) puts its
# findings in the same document under "policy", so a Rego rule can also require that hotc's gate passed.
package hotc.plan

import rego.v1

# A volume is never replaced: its data would be lost.
deny contains msg if {
	some rc in input.resource_changes
	rc.type == "OS::Cinder::Volume"
	rc.actions == ["create", "delete"]
	msg := sprintf("%s: replacing a Cinder volume loses its data", [rc.address])
}

# No server is rebuilt (the root disk is wiped) without a review.
deny contains msg if {
	some rc in input.resource_changes
	rc.rebuild
	msg := sprintf("%s: a rebuild wipes the root disk", [rc.address])
}

# hotc's own deny rules must have passed too.
deny contains msg if {
	not input.policy.passed
	msg := "hotc's --policy-file/--deny gate failed"
}

warn contains msg if {
	some f in input.policy.findings
	f.level == "warn"
	msg := sprintf("%s: %s", [f.address, f.rule])
}
