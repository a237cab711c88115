"""The OpenStack provider: drivers on openstacksdk, one module per service, each exposing ``DRIVERS``
(``hotc.providers.drivers`` collects them).

- ``common``: calls with retries (409/429/5xx/dropped connections, exponential backoff, ``Retry-After``), creates
  that look for what a failed attempt made before re-issuing, waits with the action's timeout, name-or-id
  look-ups, the lineage/address stamp, errors carrying the cloud's message (:class:`common.ProviderError`,
  a :class:`~hotc.errors.HotcError`), and :class:`common.Defaulted`, which fills Heat's defaults into the
  properties a driver receives.
- ``neutron``, ``nova``, ``cinder``, ``octavia``, ``glance``, ``swift``: the resource types.
- ``constraints``: Heat's custom constraints (``nova.flavor``, ``glance.image``, ``ip_addr``, …) for plan time.
- ``auth``: connections from clouds.yaml / ``OS_CLOUD`` / ``OS_*`` / ``--os-cloud``.

Where each resource carries the stamp (``hotc-lineage``, ``hotc-address``) that lets a later run find it:
Neutron tags (set right after the create; an untagged resource with a name hotc generated is adopted too),
Nova server metadata, Cinder volume metadata, Octavia tags, Glance tags, Swift container metadata, flavor extra
specs (``hotc:lineage``/``hotc:address``). Key pairs, router interfaces, floating IP associations, volume
attachments and security group rules are found by what they are (name and public key, router+subnet, …).
"""
