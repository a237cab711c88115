"""The resource-type plugin interface: discovery through entry points, built-ins through the same group, and
clear errors naming the package for a plugin that cannot load."""

from __future__ import annotations

import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest

from hotc.errors import HotcError
from hotc.providers.base import ResourceType
from hotc.providers.plugins import BUILTIN_ENTRY_POINT, ENTRY_POINT_GROUP, PluginType, discover


def _ep(tmp_path: Path, module: str, body: str, name: str = "demo") -> metadata.EntryPoint:
    (tmp_path / f"{module}.py").write_text(textwrap.dedent(body))
    if str(tmp_path) not in sys.path:
        sys.path.insert(0, str(tmp_path))
    sys.modules.pop(module, None)
    return metadata.EntryPoint(name=name, value=f"{module}:resource_types", group=ENTRY_POINT_GROUP)


def _builtin() -> list[PluginType]:
    return [PluginType(ResourceType("OS::Heat::None"))]


def test_the_installed_hotc_registers_its_built_ins_through_the_group() -> None:
    eps = metadata.entry_points(group=ENTRY_POINT_GROUP)
    assert BUILTIN_ENTRY_POINT in {ep.value for ep in eps}, (
        "pip install -e . declares the built-in entry point"
    )
    table = discover()
    assert str(table["OS::Nova::Server"].source).endswith("(built-in)")
    from hotc.providers.drivers import support_problem

    assert support_problem("OS::Heat::TestResource") is None


def test_a_plugin_type_is_registered_with_its_source(tmp_path: Path) -> None:
    ep = _ep(
        tmp_path,
        "plug_ok",
        """
        from hotc.providers.plugin_api import PluginType, ResourceType, string
        def resource_types():
            return [PluginType(ResourceType("Acme::Thing", properties={"size": string()}))]
        """,
    )
    table = discover(lambda: [ep], _builtin)
    assert set(table) == {"OS::Heat::None", "Acme::Thing"}
    assert "demo = plug_ok:resource_types" in str(table["Acme::Thing"].source)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "import no_such_module_anywhere\ndef resource_types(): return []\n",
            "could not be loaded: ModuleNotFoundError",
        ),
        ("resource_types = 42\n", "is not callable"),
        ("def resource_types(): return ['not a type']\n", "it must return hotc.providers.plugins.PluginType"),
        (
            "def resource_types(): raise RuntimeError('boom')\n",
            "failed while listing its types: RuntimeError: boom",
        ),
        (
            "from hotc.providers.plugin_api import PluginType, ResourceType\n"
            "def resource_types(): return [PluginType(ResourceType('OS::Heat::None'))]\n",
            "is declared by",
        ),
        (
            "from hotc.providers.plugin_api import PluginType, ResourceType\n"
            "def resource_types(): return [PluginType(ResourceType('nocolons'))]\n",
            "type names look like",
        ),
    ],
)
def test_a_broken_plugin_is_a_clear_error_naming_it(tmp_path: Path, body: str, message: str) -> None:
    module = f"plug_bad_{abs(hash(body)) % 10**8}"
    ep = _ep(tmp_path, module, body, name="broken")
    with pytest.raises(HotcError) as err:
        discover(lambda: [ep], _builtin)
    assert message in err.value.message
    assert "broken" in err.value.message or "declared by" in err.value.message
