"""Aodh (``alarming``) drivers, one module per alarm type; :mod:`.base` holds what they share. The test cloud runs
Aodh's API alone: the event, composite, load-balancer member health and prometheus alarms are created for real
there; the Gnocchi alarms and the threshold alarm have no driver (see ``hotc.providers.missing_services``)."""
