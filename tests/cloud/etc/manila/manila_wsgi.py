"""manila-api's WSGI application for gunicorn, reading the test cloud's manila.conf (Manila parses sys.argv for
its configuration, and gunicorn's argv is not Manila's, so the config file is named here)."""

import sys

sys.argv = ["manila-api", "--config-file", "@MC@/etc/manila/manila.conf"]

from manila.wsgi.wsgi import initialize_application  # noqa: E402

application = initialize_application()
