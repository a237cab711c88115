"""The push path of the YAML decoder: libyaml's C event loop calls the decoder's callbacks in place of PyYAML's
event classes, which are module globals of ``yaml._yaml`` and so shared by the whole process.

What must hold: the globals are PyYAML's own again after every decode, however it ends (a document, an
anchor handed to the node path, a syntax error, a malformed number, a second document, deep nesting); the
push path is only taken when no other thread exists, so another thread that streams events through PyYAML's
C parser or emitter at the same time sees PyYAML's own classes; and the answers are the pull path's."""

from __future__ import annotations

import subprocess
import sys
import threading
from typing import Any

import pytest
import yaml
import yaml._yaml as libyaml_module

from hotc.parser import yamlload
from hotc.parser.yamlload import _UNUSUAL, _from_pulled, _from_pushed, load_yaml_text

_EVENT_CLASSES = {
    "StreamStartEvent": yaml.events.StreamStartEvent,
    "StreamEndEvent": yaml.events.StreamEndEvent,
    "DocumentStartEvent": yaml.events.DocumentStartEvent,
    "DocumentEndEvent": yaml.events.DocumentEndEvent,
    "AliasEvent": yaml.events.AliasEvent,
    "ScalarEvent": yaml.events.ScalarEvent,
    "SequenceStartEvent": yaml.events.SequenceStartEvent,
    "SequenceEndEvent": yaml.events.SequenceEndEvent,
    "MappingStartEvent": yaml.events.MappingStartEvent,
    "MappingEndEvent": yaml.events.MappingEndEvent,
}

_DOC = "a: 1\nb: [x, {c: d}, 2.5, null, yes]\nc: {d: '0x1f', e: 0x1f}\na: 2\n"


def _globals_are_pyyaml_s() -> None:
    for name, cls in _EVENT_CLASSES.items():
        assert vars(libyaml_module)[name] is cls, name
    # and libyaml's parser builds PyYAML's events again
    events = list(yaml.parse("a: [b]\n", Loader=yaml.CSafeLoader))
    assert [type(e) for e in events] == [
        yaml.StreamStartEvent,
        yaml.DocumentStartEvent,
        yaml.MappingStartEvent,
        yaml.ScalarEvent,
        yaml.SequenceStartEvent,
        yaml.ScalarEvent,
        yaml.SequenceEndEvent,
        yaml.MappingEndEvent,
        yaml.DocumentEndEvent,
        yaml.StreamEndEvent,
    ]


def test_the_module_names_are_the_ones_libyaml_builds_events_with() -> None:
    # the push path is only worth anything if yaml._yaml looks the classes up by these names per event: a
    # PyYAML that bound them otherwise would leave every document to the pull path's speed, not break it
    assert set(_EVENT_CLASSES) == set(yamlload._EVENT_NAMES)
    seen: list[Any] = []
    real = vars(libyaml_module)["ScalarEvent"]

    def spy(*args: Any) -> Any:
        seen.append(args[3])
        return real(*args)

    vars(libyaml_module)["ScalarEvent"] = spy
    try:
        list(yaml.parse("k: v\n", Loader=yaml.CSafeLoader))
    finally:
        vars(libyaml_module)["ScalarEvent"] = real
    assert seen == ["k", "v"]


@pytest.mark.parametrize(
    "text",
    [
        _DOC,  # decoded
        "a: &x {b: 1}\nc: *x\n",  # an anchor: the node path
        "a: !!str 1\n",  # a tag: the node path
        "a: 1\n---\nb: 2\n",  # two documents: the node path
        "? [a, b]\n: c\n",  # a key that is a list
        "a: [b\n",  # a syntax error
        "a: 0b_\n",  # a malformed binary integer (int('', 2))
        "a: " + "[" * 150 + "]" * 150 + "\n",  # deeper than the push path goes
        "",  # nothing
    ],
)
def test_after_a_pushed_decode_the_event_classes_are_pyyaml_s_again(text: str) -> None:
    try:
        pushed: Any = _from_pushed(text, "t.yaml")
    except (yaml.YAMLError, ValueError) as exc:
        pushed = type(exc)
    _globals_are_pyyaml_s()
    try:
        pulled: Any = _from_pulled(text, "t.yaml")
    except (yaml.YAMLError, ValueError) as exc:
        pulled = type(exc)
    if text.startswith("a: [["):
        assert pushed == (_UNUSUAL, [])  # the pull path may decode it, or give it to the node path
    elif isinstance(pulled, tuple) and pulled[0] is not _UNUSUAL:
        assert isinstance(pushed, tuple)
        assert pushed[0] == pulled[0] and pushed[1] == pulled[1]
    else:
        assert pushed == pulled


def test_a_decoded_document_and_its_duplicate_key_warning_are_the_pull_path_s() -> None:
    data, diags = _from_pushed(_DOC, "t.yaml")
    want, want_diags = _from_pulled(_DOC, "t.yaml")
    assert data == want == {"a": 2, "b": ["x", {"c": "d"}, 2.5, None, True], "c": {"d": "0x1f", "e": 31}}
    assert data.key_pos == want.key_pos and data.value_pos == want.value_pos
    assert data["b"].item_pos == want["b"].item_pos
    assert [str(d) for d in diags] == [str(d) for d in want_diags] and len(diags) == 1


def test_the_push_path_is_taken_only_by_the_process_s_only_thread() -> None:
    script = (
        "import threading, _thread, time\n"
        "from hotc.parser import yamlload\n"
        "print(yamlload._alone())\n"
        "stop = threading.Event()\n"
        "t = threading.Thread(target=stop.wait); t.start()\n"
        "print(yamlload._alone())\n"
        "stop.set(); t.join()\n"
        "print(yamlload._alone())\n"
        "lock = _thread.allocate_lock(); lock.acquire(); done = _thread.allocate_lock(); done.acquire()\n"
        "def raw():\n"
        "    lock.acquire(); done.release()\n"
        "_thread.start_new_thread(raw, ())\n"
        "while _thread._count() == 0: time.sleep(0.001)\n"
        "print(yamlload._alone())\n"
        "lock.release(); done.acquire()\n"
        "while _thread._count(): time.sleep(0.001)\n"
        "print(yamlload._alone())\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "False", "True", "False", "True"]


def test_another_thread_streaming_events_meanwhile_sees_pyyaml_s_classes(monkeypatch: Any) -> None:
    # while this thread decodes, another parses and emits event streams through libyaml: with the other
    # thread alive the decoder must not swap the classes (it pulls), and the other thread's streams stay right
    pushed: list[str] = []
    real_pushed = yamlload._from_pushed

    def counting(text: str, file: str) -> Any:
        pushed.append(file)
        return real_pushed(text, file)

    monkeypatch.setattr(yamlload, "_from_pushed", counting)
    source = "x: [1, {y: z}]\nw: v\n"
    want = [type(e) for e in yaml.parse(source, Loader=yaml.CSafeLoader)]
    problems: list[str] = []
    started = threading.Event()
    stop = threading.Event()

    def stream() -> None:
        started.set()
        while not stop.is_set():
            events = list(yaml.parse(source, Loader=yaml.CSafeLoader))
            if [type(e) for e in events] != want:
                problems.append(f"parse: {events!r}")
            if yaml.safe_load(yaml.emit(events, Dumper=yaml.CDumper)) != {"x": [1, {"y": "z"}], "w": "v"}:
                problems.append("emit")

    other = threading.Thread(target=stream)
    other.start()
    started.wait()
    try:
        for i in range(200):
            data, diags = load_yaml_text(_DOC, f"t{i}.yaml")
            assert data == {"a": 2, "b": ["x", {"c": "d"}, 2.5, None, True], "c": {"d": "0x1f", "e": 31}}
    finally:
        stop.set()
        other.join()
    assert problems == []
    assert pushed == []  # never with another thread alive
    _globals_are_pyyaml_s()


def test_without_libyaml_the_decoder_pulls_from_pyyaml_s_own_parser() -> None:
    # PyYAML built without libyaml has no yaml._yaml: nothing to push from, and decoding still works
    script = (
        "import sys\n"
        "sys.modules['yaml._yaml'] = None\n"
        "import yaml\n"
        "assert not yaml.__with_libyaml__\n"
        "from hotc.parser import yamlload\n"
        "assert yamlload._LIBYAML_GLOBALS == {}\n"
        f"data, diags = yamlload.load_yaml_text({_DOC!r}, 't.yaml')\n"
        "print(repr((data, sorted(data.value_pos.items()), data['b'].item_pos, [str(d) for d in diags])))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    data, diags = _from_pushed(_DOC, "t.yaml")
    assert out.strip() == repr(
        (data, sorted(data.value_pos.items()), data["b"].item_pos, [str(d) for d in diags])
    )


class _Partly(dict):  # type: ignore[type-arg]
    """yaml._yaml's globals as a PyYAML would use them that built some events without looking them up: the
    names in ``skip`` are never bound to the callbacks (with ``skip`` all of them: none is)."""

    def __init__(self, skip: set[str]) -> None:
        super().__init__()
        self.skip = skip

    def update(self, names: Any) -> None:  # type: ignore[override]
        vars(libyaml_module).update({k: v for k, v in names.items() if k not in self.skip})


@pytest.mark.parametrize(
    "skip",
    [set(_EVENT_CLASSES), {"MappingEndEvent"}, {"StreamEndEvent"}, {"ScalarEvent"}],
    ids=["none-bound", "mapping-end", "stream-end", "scalar"],
)
def test_a_pyyaml_that_builds_events_otherwise_is_decoded_by_pulling(
    monkeypatch: Any, skip: set[str]
) -> None:
    # the push path checks that every answer of libyaml's loop was a callback's: an event object that came
    # through instead means the callbacks missed part of the stream (no hang, no half-built data)
    monkeypatch.setattr(yamlload, "_LIBYAML_GLOBALS", _Partly(skip))
    data, diags = _from_pushed(_DOC, "t.yaml")
    want, want_diags = _from_pulled(_DOC, "t.yaml")
    assert data == want and data.value_pos == want.value_pos and diags == want_diags
    _globals_are_pyyaml_s()
