"""Heat's side of bench_validate.py: ``template validate`` of templates by the test cloud's Heat, in one process.

    /opt/hotc-cloud/venv/bin/python bench/heat_validate.py < JOBS.json

Runs with the test cloud's Python (it has python-heatclient; hotc's venv does not). ``JOBS.json`` is a list of
``{"template": PATH, "environments": [PATH, ...]}``. Each template is read the way ``openstack orchestration
template validate`` reads it (heatclient's template_utils: get_file targets and nested templates go along in
``files``), then POSTed to Heat's validate. The first job is sent once more first, as a warm-up (a connection and
a token), and not counted. Prints one JSON object: ``{"wall": seconds of the loop, "ok": n, "failed": n,
"errors": [first messages], "per_job": [seconds, ...]}``. Cloud: ``OS_CLOUD`` (default ``hotc-test``) from
``OS_CLIENT_CONFIG_FILE`` (default ``/opt/hotc-cloud/etc/clouds.yaml``).
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any


def main() -> None:
    os.environ.setdefault("OS_CLIENT_CONFIG_FILE", "/opt/hotc-cloud/etc/clouds.yaml")
    import openstack
    from heatclient import client as heat_client
    from heatclient.common import template_utils

    jobs: list[dict[str, Any]] = json.load(sys.stdin)
    conn = openstack.connect(cloud=os.environ.get("OS_CLOUD", "hotc-test"))
    heat = heat_client.Client("1", session=conn.session, endpoint_type="public")

    def validate(job: dict[str, Any]) -> str | None:
        try:
            files, template = template_utils.process_template_path(job["template"])
            env_files, env = template_utils.process_multiple_environments_and_files(
                env_paths=job.get("environments") or []
            )
            heat.stacks.validate(template=template, files={**files, **env_files}, environment=env)
        except Exception as exc:  # a rejected template is a result here, not a failure of the benchmark
            return str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        return None

    if jobs:
        validate(jobs[0])
    per_job: list[float] = []
    errors: list[str] = []
    failed = 0
    t0 = time.perf_counter()
    for job in jobs:
        t = time.perf_counter()
        problem = validate(job)
        per_job.append(time.perf_counter() - t)
        if problem is not None:
            failed += 1
            if len(errors) < 5:
                errors.append(f"{os.path.basename(job['template'])}: {problem}")
    wall = time.perf_counter() - t0
    print(
        json.dumps(
            {"wall": wall, "ok": len(jobs) - failed, "failed": failed, "errors": errors, "per_job": per_job}
        )
    )


if __name__ == "__main__":
    main()
