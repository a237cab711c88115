"""aodh-api's WSGI application for gunicorn, reading the test cloud's aodh.conf (gunicorn's argv is not
Aodh's, so the config file is named here)."""

from aodh.api import app

application = app.build_wsgi_app(argv=["--config-file", "@MC@/etc/aodh/aodh.conf"])
