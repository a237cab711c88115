"""barbican-api for gunicorn: Barbican's own WSGI module reads its paste file from /etc/barbican only."""

import os

# Barbican (and its crypto plugins) read ~/.barbican/barbican.conf: this cloud's configuration
os.environ["HOME"] = "@MC@/state/barbican/home"

from paste import deploy  # noqa: E402

application = deploy.loadapp("config:@MC@/etc/barbican/barbican-api-paste.ini")
