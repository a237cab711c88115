"""A worker process for the fuzz harness: it imports hotc once, then runs each case in a forked child with a
CPU-time alarm, an address-space limit and a wall-clock backstop, so a hang or a blow-up is detected, not
suffered. Protocol: one JSON request per line on stdin, one JSON result per line on stdout.

Request: ``{"id": N, "mode": "validate"|"plan"|"apply", "files": {name: base64}, "envs": [name...]}``.
Result: ``{"id": N, "kind": K, "detail": TEXT, "cpu": SECONDS, "rss_mb": MB, "exit": CODE}`` where K is
``ok`` (the command ran and said what it had to), ``traceback``, ``hang`` (over the CPU limit or the wall
backstop), ``memory`` (MemoryError, or a peak RSS over the limit), ``crash`` (killed by a signal) or
``no-position`` (an error printed without FILE:LINE:COL).
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import re
import resource
import select
import shutil
import signal
import sys
import tempfile
import time
import traceback
from typing import Any

CPU_LIMIT = float(os.environ.get("HOTC_FUZZ_CPU", "5"))  # seconds of CPU per case: over it is a hang
WALL_LIMIT = float(os.environ.get("HOTC_FUZZ_WALL", "60"))  # backstop for a case blocked without using CPU
RSS_LIMIT_MB = float(os.environ.get("HOTC_FUZZ_RSS_MB", "500"))  # peak resident memory: over it is a blow-up
AS_HEADROOM = 1 << 30  # address space allowed above the worker's own, so a blow-up fails fast

# an error line that says where: ``FILE:LINE:COL: error: ...`` or ``error: FILE:LINE:COL: ...``
_POSITIONED = re.compile(r"^(?:\S[^\n]*?:\d+:\d+: error: |error: \S+:\d+:\d+: )")
_ERROR_LINE = re.compile(r"^(?:\S[^\n]*?: )?error: ")
# summary lines that follow positioned diagnostics (the diagnostics carry the positions)
_SUMMARIES = (
    re.compile(r"^error: .*: the template has \d+ error\(s\); nothing was \w+"),
    re.compile(r"^\d+ error\(s\), \d+ warning\(s\)$"),
    re.compile(r"^error: the plan cannot be applied: \d+ problem\(s\) listed above; nothing was planned"),
    re.compile(r"^error: the plan cannot be made: \d+ change\(s\) Heat would refuse \(listed above\)$"),
)


class CaseTimeout(BaseException):
    """Raised by the CPU alarm. A BaseException (as KeyboardInterrupt) so that no ``except Exception`` in
    hotc or a library turns the alarm into an ordinary error."""


def _caused_by_alarm(exc: BaseException | None) -> bool:
    seen = 0
    while exc is not None and seen < 50:
        if isinstance(exc, CaseTimeout):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


def _on_alarm(_sig: int, _frame: Any) -> None:
    raise CaseTimeout()


def _vm_size() -> int:
    try:
        for line in open("/proc/self/status", encoding="ascii"):
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def classify_output(code: int, out: str, err: str) -> tuple[str, str]:
    """(kind, detail) of a command that ran to its end: ``ok``, ``traceback`` or ``no-position``."""
    text = out + "\n" + err
    if "Traceback (most recent call last)" in text:
        return "traceback", text[-3000:]
    if code not in (0, 1, 2, 3):
        return "traceback", f"exit code {code}: {text[-2000:]}"
    lines = [line for line in text.splitlines() if _ERROR_LINE.match(line) or _POSITIONED.match(line)]
    positioned = [line for line in lines if _POSITIONED.match(line)]
    bare = [
        line for line in lines if not _POSITIONED.match(line) and not any(s.match(line) for s in _SUMMARIES)
    ]
    if bare:
        return "no-position", "\n".join(bare)[:2000]
    if code == 1 and not positioned and not _refused_for_a_warning(text):
        return "no-position", ("exit 1 without a positioned error:\n" + text)[-2000:]
    return "ok", ""


_WARNING_LINE = re.compile(r"^\S[^\n]*?:\d+:\d+: warning: ", re.MULTILINE)


def _refused_for_a_warning(text: str) -> bool:
    """A plan refused for what a positioned warning above says (a function its template version lacks)."""
    return "(see the warning above)" in text and _WARNING_LINE.search(text) is not None


def _prepare(req: dict[str, Any], workdir: str) -> list[str]:
    """Write the case's files (and the hostile neighbours get_file may name) into ``workdir``; the args."""
    for name, data in req["files"].items():
        with open(os.path.join(workdir, name), "wb") as fh:
            fh.write(base64.b64decode(data))
    os.mkfifo(os.path.join(workdir, "fifo"))
    os.symlink("/dev/zero", os.path.join(workdir, "zero"))
    os.mkdir(os.path.join(workdir, "dir"))
    args = [req["mode"], "-t", "t.yaml"]
    for e in req.get("envs", ()):
        args += ["-e", e]
    if req["mode"] in ("plan", "apply"):
        args += ["--backend", os.path.join(workdir, "state")]
    if req["mode"] == "apply":
        args += ["--auto-approve"]
    return args


def _execute(args: list[str]) -> dict[str, Any]:
    """Run one hotc command in this process under the CPU alarm; the classified result."""
    signal.signal(signal.SIGPROF, _on_alarm)
    signal.setitimer(signal.ITIMER_PROF, CPU_LIMIT)
    out, err = io.StringIO(), io.StringIO()
    code = 0
    kind, detail = "ok", ""
    try:
        from hotc.cli.app import main

        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(args)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        signal.setitimer(signal.ITIMER_PROF, 0)
        kind, detail = classify_output(code, out.getvalue(), err.getvalue())
    except CaseTimeout:
        kind, detail = "hang", "over the CPU limit, in:\n" + "".join(traceback.format_exc()[-3000:])
    except MemoryError:
        signal.setitimer(signal.ITIMER_PROF, 0)
        kind, detail = "memory", "MemoryError:\n" + traceback.format_exc()[-2000:]
    except BaseException as exc:  # noqa: BLE001 -- anything escaping the CLI is a traceback
        signal.setitimer(signal.ITIMER_PROF, 0)
        kind, detail = "traceback", traceback.format_exc()[-3000:]
        if _caused_by_alarm(exc):  # the alarm fired inside a handler that raised something else
            kind = "hang"
    signal.setitimer(signal.ITIMER_PROF, 0)
    output = (out.getvalue() + err.getvalue())[-4000:]
    return {"kind": kind, "detail": detail, "exit": code, "output": output}


def _run_child(req: dict[str, Any], workdir: str, result_fd: int) -> None:
    """In the forked child: write the files, run the command in-process, report, exit."""
    args = _prepare(req, workdir)
    os.chdir(workdir)
    limit = _vm_size() + AS_HEADROOM
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CPU, (int(CPU_LIMIT) + 3, int(CPU_LIMIT) + 5))
    res = _execute(args)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    res["cpu"] = usage.ru_utime + usage.ru_stime
    os.write(result_fd, json.dumps(res).encode())
    os._exit(0)


def _status_kb(field: str) -> float:
    try:
        for line in open("/proc/self/status", encoding="ascii"):
            if line.startswith(field + ":"):
                return float(line.split()[1])
    except OSError:
        pass
    return 0.0


def run_inproc(req: dict[str, Any], base: str) -> dict[str, Any]:
    """The case in this very process (no fork: about three times cheaper). The peak RSS is reset before and
    read after; the worker's address space is capped once (see :func:`main`). After a bad result the worker
    ends (its caches may be half-built) and the pool starts a fresh one."""
    workdir = tempfile.mkdtemp(dir=base)
    cwd = os.getcwd()
    try:
        args = _prepare(req, workdir)
        try:
            with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
                fh.write("5")  # reset VmHWM, the peak resident size
        except OSError:
            pass
        before = resource.getrusage(resource.RUSAGE_SELF)
        os.chdir(workdir)
        res = _execute(args)
        after = resource.getrusage(resource.RUSAGE_SELF)
    finally:
        os.chdir(cwd)
        shutil.rmtree(workdir, ignore_errors=True)
    res["cpu"] = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    res["rss_mb"] = (_status_kb("VmHWM") or after.ru_maxrss) / 1024.0
    if res["kind"] in ("ok", "no-position") and res["rss_mb"] > RSS_LIMIT_MB:
        res["kind"], res["detail"] = "memory", f"peak RSS {res['rss_mb']:.0f} MB"
    return res


def run_one(req: dict[str, Any], base: str) -> dict[str, Any]:
    workdir = tempfile.mkdtemp(dir=base)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(r)
        try:
            _run_child(req, workdir, w)
        finally:
            os._exit(3)
    os.close(w)
    chunks: list[bytes] = []
    deadline = time.monotonic() + WALL_LIMIT
    timed_out = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        ready, _, _ = select.select([r], [], [], min(left, 1.0))
        if ready:
            chunk = os.read(r, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    if timed_out:
        os.kill(pid, signal.SIGKILL)
    _, status, usage = os.wait4(pid, 0)
    os.close(r)
    shutil.rmtree(workdir, ignore_errors=True)
    rss_mb = usage.ru_maxrss / 1024.0
    cpu = usage.ru_utime + usage.ru_stime
    if timed_out:
        return {
            "kind": "hang",
            "detail": f"blocked: no result after {WALL_LIMIT:g}s of wall time",
            "cpu": cpu,
            "rss_mb": rss_mb,
        }
    try:
        res: dict[str, Any] = json.loads(b"".join(chunks))
    except ValueError:
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        kind = "hang" if sig == signal.SIGXCPU else "memory" if sig == signal.SIGKILL else "crash"
        return {
            "kind": kind,
            "detail": f"child died (status {status}, signal {sig})",
            "cpu": cpu,
            "rss_mb": rss_mb,
        }
    res["rss_mb"] = rss_mb
    res["cpu"] = cpu
    if res["kind"] in ("ok", "no-position") and rss_mb > RSS_LIMIT_MB:
        res["kind"], res["detail"] = "memory", f"peak RSS {rss_mb:.0f} MB"
    return res


def _warm_up() -> None:
    """Run one validate and one plan in this process, so every lazy import, grammar and cache a case needs is
    built once here and inherited by each forked child instead of rebuilt by every one."""
    from hotc.cli.app import main as hotc_main
    from tests.fuzz.mutate import CHILD, SEEDS

    d = tempfile.mkdtemp(prefix="hotc-fuzz-warm-")
    try:
        for i, seed in enumerate(SEEDS):
            with open(os.path.join(d, f"w{i}.yaml"), "w", encoding="utf-8") as fh:
                fh.write(seed)
        with open(os.path.join(d, "child.yaml"), "w", encoding="utf-8") as fh:
            fh.write(CHILD)
        with open(os.path.join(d, "data.txt"), "w", encoding="utf-8") as fh:
            fh.write("x\n")
        cwd = os.getcwd()
        os.chdir(d)
        try:
            for i in range(len(SEEDS)):
                for args in (
                    ["validate", "-t", f"w{i}.yaml"],
                    ["plan", "-t", f"w{i}.yaml", "--backend", "st"],
                ):
                    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                        try:
                            hotc_main(args)
                        except SystemExit:
                            pass
        finally:
            os.chdir(cwd)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main() -> None:
    # everything a case needs is imported once, before forking
    import hotc.cli.app  # noqa: F401
    import hotc.providers.drivers as drivers

    drivers.openstack_drivers()  # every driver module imported once, before forking
    _warm_up()
    for k in [k for k in os.environ if k.startswith("OS_") or k in ("HOTC_BACKEND", "HOTC_STATE_KEY")]:
        del os.environ[k]
    inproc = os.environ.get("HOTC_FUZZ_INPROC") == "1"
    if inproc:
        limit = _vm_size() + AS_HEADROOM
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    base = tempfile.mkdtemp(prefix="hotc-fuzz-")
    try:
        for line in sys.stdin:
            req = json.loads(line)
            res = run_inproc(req, base) if inproc else run_one(req, base)
            res["id"] = req["id"]
            sys.stdout.write(json.dumps(res) + "\n")
            sys.stdout.flush()
            if inproc and res["kind"] != "ok":
                break  # a fresh worker for the next case
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
