"""Designate (``dns``) drivers, one module per type; :mod:`.common` holds what they share. The test cloud runs
Designate with bind9 behind it (``tests/cloud/87-designate.sh``): zones and record sets are made for real there
and bind9 serves them. ``OS::Designate::Domain`` and ``Record`` are Heat's hidden placeholders (:mod:`.placeholders`)."""
