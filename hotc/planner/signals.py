"""Plan-time checks for what apply could not do: resource types hotc has no driver for, options that need a
service hotc does not have (a Heat or Zaqar signal transport), and the signal store that wait conditions,
Swift signals and their handles need (configured, reachable, keeping object versions when several signals go
to one handle). A plan never looks green for something apply would refuse.

``check_plan_support(desired, plan)`` is pure (positioned diagnostics); ``enforce_plan_support(desired, plan,
store)`` is the CLI edge: it raises a HotcError carrying them, and probes the store only when the plan needs
it (``store`` is a lazy getter, :func:`hotc.state.signal_store.store_factory`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from hotc.errors import Diagnostic, HotcError, error
from hotc.model import model
from hotc.planner.plan import Action, Plan
from hotc.providers.drivers import driver_for, unsupported_reason
from hotc.state.signal_store import NO_STORE_HINT
from hotc.values import Unknown

#: types whose create/update/delete reads or writes the signal store
STORE_TYPES = frozenset(
    {
        "OS::Heat::WaitConditionHandle",
        "OS::Heat::WaitCondition",
        "OS::Heat::SwiftSignalHandle",
        "OS::Heat::SwiftSignal",
        "AWS::CloudFormation::WaitConditionHandle",
        "AWS::CloudFormation::WaitCondition",
        "OS::Heat::UpdateWaitConditionHandle",
        "OS::Heat::SoftwareDeployment",
        "OS::Heat::StructuredDeployment",
        "OS::Heat::SoftwareDeploymentGroup",
        "OS::Heat::StructuredDeploymentGroup",
        "OS::Heat::SoftwareDeployments",
        "OS::Heat::StructuredDeployments",
        "OS::Heat::DeployedServer",
        "OS::Heat::ScalingPolicy",
    }
)
HANDLE_TYPES = frozenset(
    {
        "OS::Heat::WaitConditionHandle",
        "OS::Heat::SwiftSignalHandle",
        "AWS::CloudFormation::WaitConditionHandle",
        "OS::Heat::UpdateWaitConditionHandle",
    }
)
DEPLOYMENT_TYPES = frozenset({"OS::Heat::SoftwareDeployment", "OS::Heat::StructuredDeployment"})
GROUP_TYPES = frozenset(
    {
        "OS::Heat::SoftwareDeploymentGroup",
        "OS::Heat::StructuredDeploymentGroup",
        "OS::Heat::SoftwareDeployments",
        "OS::Heat::StructuredDeployments",
    }
)
DEPLOYED_SERVER = "OS::Heat::DeployedServer"
SERVER = "OS::Nova::Server"
#: server config transports that need a service hotc does not have
SERVICE_CONFIG_TRANSPORTS: Mapping[str, str] = {
    "POLL_SERVER_CFN": "Heat's CloudFormation-compatible API",
    "POLL_SERVER_HEAT": "Heat's API",
    "ZAQAR_MESSAGE": "the Zaqar messaging service",
}
#: waiters and the property holding how many signals they wait for
COUNT_PROPS: Mapping[str, str] = {
    "OS::Heat::WaitCondition": "count",
    "OS::Heat::SwiftSignal": "count",
    "AWS::CloudFormation::WaitCondition": "Count",
}
#: signal transports that need a service hotc does not have, with what to use instead
SERVICE_TRANSPORTS: Mapping[str, str] = {
    "CFN_SIGNAL": "Heat's CloudFormation-compatible API (heat-api-cfn)",
    "HEAT_SIGNAL": "Heat's API (resource signal with Keystone credentials)",
    "ZAQAR_SIGNAL": "the Zaqar messaging service",
}
HANDLE_TRANSPORT_HINT = "use signal_transport TOKEN_SIGNAL (the default) or TEMP_URL_SIGNAL, or NO_SIGNAL"

_APPLIED = (Action.CREATE, Action.UPDATE, Action.REPLACE)


@model
class StoreNeeds:
    addresses: tuple[str, ...]  # changes that use the signal store
    multi: tuple[str, ...]  # waiters that may need several signals on one handle (count > 1 or unknown)


def transport_problem(type_name: str, props: Mapping[str, Any]) -> str | None:
    """Why a resource's ``signal_transport`` cannot work without Heat (None when it can)."""
    t = props.get("signal_transport")
    if not isinstance(t, str) or t not in SERVICE_TRANSPORTS:
        return None
    if type_name == "OS::Heat::WaitConditionHandle":
        return f"signal_transport {t} needs {SERVICE_TRANSPORTS[t]}, which hotc does not have; {HANDLE_TRANSPORT_HINT}"
    if type_name in DEPLOYMENT_TYPES or type_name in GROUP_TYPES:
        return (
            f"signal_transport {t} needs {SERVICE_TRANSPORTS[t]}, which hotc does not have; use TEMP_URL_SIGNAL "
            "(the server PUTs its outputs to a presigned URL; what hotc does when signal_transport is not given) "
            "or NO_SIGNAL"
        )
    return None


def config_transport_problem(props: Mapping[str, Any]) -> str | None:
    """Why a server's ``software_config_transport`` cannot work without Heat (None when it can)."""
    t = props.get("software_config_transport")
    if props.get("user_data_format") != "SOFTWARE_CONFIG" or not isinstance(t, str):
        return None
    return _config_transport_problem(t)


def _config_transport_problem(t: Any) -> str | None:
    if t in SERVICE_CONFIG_TRANSPORTS:
        return (
            f"software_config_transport {t} needs {SERVICE_CONFIG_TRANSPORTS[t]}, which hotc does not have; use "
            "POLL_TEMP_URL (os-collect-config polls a presigned URL; what hotc does when it is not given)"
        )
    return None


def store_needs(plan: Plan) -> StoreNeeds:
    used: list[str] = []
    multi: list[str] = []
    for c in plan.changes:
        if c.action is Action.NOOP or c.action is Action.FORGET:
            continue
        props = c.after if c.action in _APPLIED else c.before
        if c.type == SERVER and (props or {}).get("user_data_format") == "SOFTWARE_CONFIG":
            used.append(c.address)
            continue
        if c.type not in STORE_TYPES:
            continue
        if c.type == "OS::Heat::WaitConditionHandle" and (props or {}).get("signal_transport") == "NO_SIGNAL":
            continue
        used.append(c.address)
        if c.type == "OS::Heat::ScalingPolicy" and c.action in _APPLIED:
            multi.append(c.address)  # every signal to its URL must be kept until it is executed
            continue
        prop = COUNT_PROPS.get(c.type)
        if prop is not None and c.action in _APPLIED:
            n = (c.after or {}).get(prop, 1)
            if isinstance(n, Unknown) or not isinstance(n, int | float) or n > 1:
                multi.append(c.address)
    return StoreNeeds(tuple(used), tuple(multi))


def check_plan_support(
    desired: Any, plan: Plan, drivers: Callable[[str], Any] | None = None
) -> list[Diagnostic]:
    """Errors for what the plan creates, updates or replaces that apply cannot do (``drivers``: the driver
    look-up, default :func:`hotc.providers.drivers.driver_for`)."""
    find = drivers or driver_for
    known: dict[str, bool] = {}  # type -> whether it has a driver (asked once per type, not per resource)

    def has_driver(type_name: str) -> bool:
        hit = known.get(type_name)
        if hit is None:
            hit = known[type_name] = find(type_name) is not None
        return hit

    out: list[Diagnostic] = []
    resources = getattr(desired, "resources", {}) or {}
    servers_at: dict[str, list[tuple[int, Any]]] | None = None

    def servers_among(addresses: Any) -> list[Any]:
        """The plan's server changes at these addresses, in the plan's order (an index made once, when a
        deployment first asks: a plan of many deployments must not scan every change for each)."""
        nonlocal servers_at
        if servers_at is None:
            servers_at = {}
            for i, o in enumerate(plan.changes):
                if o.type == SERVER:
                    servers_at.setdefault(o.address, []).append((i, o))
        found = [hit for a in set(addresses) for hit in servers_at.get(a, ())]
        return [o for _i, o in sorted(found, key=lambda hit: hit[0])]

    for c in plan.changes:
        if c.action not in _APPLIED or c.import_id is not None:
            continue
        dr = resources.get(c.address)
        pos = getattr(dr, "pos", None)
        if not has_driver(c.type):
            out.append(
                error(
                    f"{c.address}: hotc cannot create or update {c.type}: {unsupported_reason(c.type)}. Map the "
                    "type to a supported one (or OS::Heat::None) in an environment's resource_registry, or "
                    "remove it",
                    pos,
                    "unsupported-type",
                )
            )
            continue
        problem = transport_problem(c.type, c.after or {})
        if c.type == SERVER:
            problem = config_transport_problem(c.after or {})
        elif c.type == DEPLOYED_SERVER:
            problem = _config_transport_problem((c.after or {}).get("software_config_transport"))
        if problem is not None:
            out.append(error(f"{c.address}: {c.type}: {problem}", pos, "unsupported-option"))
        if c.type in DEPLOYMENT_TYPES:
            servers = servers_among(c.depends_on)
            if len(servers) == 1 and (servers[0].after or {}).get("user_data_format") != "SOFTWARE_CONFIG":
                out.append(
                    error(
                        f"{c.address}: the server {servers[0].address} must have user_data_format: SOFTWARE_CONFIG "
                        "since there are software deployments on it (as Heat requires)",
                        pos,
                        "deployment-server",
                    )
                )
        if c.type in GROUP_TYPES:
            servers_map = (c.after or {}).get("servers")
            named = {
                w.address
                for v in (servers_map.values() if isinstance(servers_map, Mapping) else ())
                if isinstance(v, Unknown)
                for w in v.waits_on
                if not w.attribute
            }
            for o in servers_among(named):
                if (o.after or {}).get("user_data_format") != "SOFTWARE_CONFIG":
                    out.append(
                        error(
                            f"{c.address}: the server {o.address} must have user_data_format: "
                            "SOFTWARE_CONFIG since there are software deployments on it (as Heat requires)",
                            pos,
                            "deployment-server",
                        )
                    )
    return out


def enforce_plan_support(
    desired: Any, plan: Plan, store: Callable[[], Any] | None, *, state_key: bool = True
) -> None:
    """Raise HotcError (with positioned diagnostics) when apply could not do what the plan says: an unsupported
    type or option, or signals with no signal store, an unreachable one, or one that would lose signals.
    ``state_key``: whether the state backend encrypts secrets (without a key a handle's URL would be stored as
    a digest only, so the next plan could not give it to the server's user_data again)."""
    if plan.mode != "normal":
        return
    diags = check_plan_support(desired, plan)
    needs = store_needs(plan)
    handles = [
        c.address
        for c in plan.changes
        if (c.type in HANDLE_TYPES or c.type == DEPLOYED_SERVER) and c.action in _APPLIED
    ]
    if handles and not state_key:
        diags.append(
            error(
                f"{', '.join(handles[:5])}: a signal handle's URL is a secret kept encrypted in the state (so is "
                "a deployed server's metadata URL), and this state backend has no encryption key: set "
                "HOTC_STATE_KEY (without it the next plan could not read the URL back and would replace every "
                "server whose user_data holds it)",
                getattr((getattr(desired, "resources", {}) or {}).get(handles[0]), "pos", None),
                "state-key",
            )
        )
    if needs.addresses:
        shown = ", ".join(needs.addresses[:5]) + (" …" if len(needs.addresses) > 5 else "")
        try:
            if store is None:
                raise HotcError("no signal store is configured: " + NO_STORE_HINT)
            s = store()
            s.check(need_versions=bool(needs.multi))
        except HotcError as exc:
            diags.append(
                error(
                    f"{shown}: signals need the signal store: {exc.message}",
                    getattr((getattr(desired, "resources", {}) or {}).get(needs.addresses[0]), "pos", None),
                    "signal-store",
                )
            )
    if diags:
        raise HotcError(
            f"the plan cannot be applied: {len(diags)} problem(s) listed above; nothing was planned",
            diagnostics=tuple(diags),
        )
