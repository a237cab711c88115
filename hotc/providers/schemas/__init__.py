"""Resource-type schemas as data, one module per namespace (``nova``, ``neutron``, ``cinder``, ``octavia``,
``glance``, ``swift``, ``heat``, ``keystone``, ``aodh``). Each module exports ``TYPES``: a tuple of
:class:`~hotc.providers.base.ResourceType`. Look types up through :mod:`hotc.providers.registry`.

The facts (property names, types, defaults, constraints, ``update_allowed``) mirror Heat's resource plugins
(``heat/engine/resources/openstack/…``, as listed in ``/work/shared/reference/heat-hot.md`` §2.6).
"""
