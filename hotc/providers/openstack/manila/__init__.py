"""Manila (``sharev2``) drivers, one module per type; :mod:`.common` holds the REST calls and look-ups they share.
The test cloud runs Manila with its dummy share driver: shares reach ``available`` through the real API, scheduler
and share service, and no file system is exported."""
