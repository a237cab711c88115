"""The OpenStack provider: drivers on openstacksdk, one module per service, each exposing ``DRIVERS``."""
