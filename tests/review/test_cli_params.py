"""Command-line values are converted by hotc/cli/params.py, not by typer's pydantic adapters (for
start-up speed): the conversions give the same values and clear errors, and the commands that need no pydantic
never import it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer._click.exceptions import UsageError

from hotc.cli.params import PlainParam, lighten

ONE = "heat_template_version: 2018-08-31\nresources:\n  r:\n    type: OS::Heat::RandomString\n"


def _app() -> typer.Typer:
    app = typer.Typer()

    @app.command()
    def cmd(
        name: str = typer.Option("x", "--name"),
        count: int = typer.Option(1, "--count", min=1),
        ratio: float = typer.Option(0.5, "--ratio", max=1.0),
        flag: bool = typer.Option(False, "--flag"),
        path: Path = typer.Option(Path("."), "--path"),
        existing: Path = typer.Option(None, "--existing", exists=True),
        tags: list[str] = typer.Option(None, "--tag"),
        files: list[Path] = typer.Option(None, "--file"),
    ) -> None:
        typer.echo(repr((name, count, ratio, flag, path, existing, tags, files)))

    @app.command()
    def other() -> None:  # two commands: a group, as hotc's
        pass

    return app


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, list[object]]:
    """Invoke with every parameter lightened; returns the exit code, the output (or the usage error's
    message) and the converters used."""
    group = typer.main.get_group(_app())
    ctx = group.make_context("t", ["cmd"], resilient_parsing=True)
    lighten(group, ctx)
    cmd = group.commands["cmd"]  # type: ignore[attr-defined]
    used = [p._runtime_param for p in cmd.get_params(ctx)]
    try:
        group.main(args, prog_name="t", standalone_mode=False)
    except UsageError as exc:
        return 2, exc.format_message(), used
    return 0, capsys.readouterr().out, used


def test_every_plain_parameter_gets_the_light_converter(capsys: pytest.CaptureFixture[str]) -> None:
    _code, _out, used = _run(["cmd"], capsys)
    assert used and all(isinstance(u, PlainParam) for u in used), used


def test_values_convert_as_typer_converts_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "f"
    f.write_text("x")
    code, out, _ = _run(
        ["cmd", "--name", "n", "--count", " 3 ", "--ratio", "0.25", "--flag", "--path", "p"]
        + ["--existing", str(f), "--tag", "a", "--tag", "b", "--file", "x.yaml"],
        capsys,
    )
    assert code == 0, out
    assert out.strip() == repr(("n", 3, 0.25, True, Path("p"), f, ["a", "b"], [Path("x.yaml")]))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--count", "abc"], "Invalid value for '--count': Input should be a valid integer"),
        (["--count", "1.5"], "Input should be a valid integer, got a number with a fractional part"),
        (["--count", "0"], "Input should be greater than or equal to 1"),
        (["--ratio", "2"], "Input should be less than or equal to 1.0"),
        (["--ratio", "x"], "Input should be a valid number"),
        (["--existing", "/nonexistent/file"], "does not exist"),
    ],
)
def test_bad_values_are_refused_with_what_and_where(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(["cmd", *args], capsys)
    assert code == 2
    assert message in out, out


@pytest.mark.parametrize(
    "argv",
    [["validate", "-t", "one.yaml"], ["--help"], ["validate", "--help"], ["state", "list", "--help"]],
)
def test_commands_that_need_no_pydantic_do_not_import_it(tmp_path: Path, argv: list[str]) -> None:
    (tmp_path / "one.yaml").write_text(ONE)
    code = (
        "import sys\nfrom hotc.cli.app import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        "print('pydantic' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().splitlines()[-1] == "False", out


def test_validate_of_a_plain_template_imports_none_of_the_heavy_packages(tmp_path: Path) -> None:
    # start-up speed: what only some commands or templates need is imported when they need it
    (tmp_path / "one.yaml").write_text(ONE)
    heavy = ["pydantic", "lark", "importlib.metadata", "email", "deepdiff", "networkx", "openstack", "boto3"]
    code = (
        "import sys\nfrom hotc.cli.app import main\n"
        "try:\n    main(['validate', '-t', 'one.yaml'])\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        f"print(sorted(m for m in {heavy!r} if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().splitlines()[-1] == "[]", out
