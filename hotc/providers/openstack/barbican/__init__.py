"""Drivers of the OS::Barbican::* types (Barbican, the key manager), one module per type."""
