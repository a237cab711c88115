"""The OpenStack provider: drivers on openstacksdk, one package per service and one module per resource type
(as Heat lays them out), each module exposing ``DRIVERS`` (``hotc.providers.drivers`` collects them); mixins and
a ``common``/``base`` module per package hold what a service's types share.

- ``common``: calls with retries (409/429/5xx/dropped connections, exponential backoff, ``Retry-After``), creates
  that look for what a failed attempt made before re-issuing, waits with the action's timeout, name-or-id
  look-ups, the lineage/address stamp, errors carrying the cloud's message (:class:`common.ProviderError`,
  a :class:`~hotc.errors.HotcError`), and :class:`common.Defaulted`, which fills Heat's defaults into the
  properties a driver receives.
- ``nova/`` (server, server_network and server_snapshot mixins, keypair, flavor), ``neutron/`` (net, subnet,
  router, router_interface, port, floating_ip, floating_ip_association, security_group, security_group_rule),
  ``cinder/`` (volume, volume_attachment), ``octavia/`` (load_balancer, listener, pool, pool_member,
  health_monitor), ``glance`` (WebImage), ``swift`` (Container): the resource types. Each of ``nova/``,
  ``neutron/``, ``cinder/`` and ``octavia/`` also has a ``quota`` module (the service's ``OS::*::Quota``), on the
  shared ``quota_set``; ``quota`` is not one of them: it reads the quotas for the plan-time quota check.
- ``live``: the live properties a ``read`` reports, normalised as the planner compares them (drift).
- ``constraints``: Heat's custom constraints (``nova.flavor``, ``glance.image``, ``ip_addr``, …) for plan time.
- ``auth``: connections from clouds.yaml / ``OS_CLOUD`` / ``OS_*`` / ``--os-cloud``.

Where each resource carries the stamp (``hotc-lineage``, ``hotc-address``) that lets a later run find it:
Neutron tags (set right after the create; an untagged resource with a name hotc generated is adopted too),
Nova server metadata, Cinder volume metadata, Octavia tags, Glance tags, Swift container metadata, flavor extra
specs (``hotc:lineage``/``hotc:address``). Key pairs, router interfaces, floating IP associations, volume
attachments and security group rules are found by what they are (name and public key, router+subnet, …).
"""
