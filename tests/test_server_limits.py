"""Issue 29: the bounds on one message, one upload and a crowd (the rules: selfattn/serving/, tested here as plain
Python; applied by ui/server_limits.py), and the Streamlit internals ui/streamlit_hooks.py wraps, pinned: each
test of those fails when Streamlit changes what the hooks rely on, and a hook whose target moved fails at start-up.

The attacks themselves, against a real server, are in tests/test_hostile.py (trigger floods) and
tests/test_hostile_heads.py (upload floods, long names, missing files).
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import time

import pytest

from streamlit.components.v2.bidi_component import main as bidi
from streamlit.runtime import Runtime
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.state.session_state import SessionState
from streamlit.runtime.uploaded_file_manager import DeletedFile, UploadedFileRec

from selfattn.display.guard import MAX_NAME_CHARS, short_name
from selfattn.serving import backmsg
from selfattn.serving import limits as policy
from selfattn.serving import turns as line
from selfattn.serving.limits import Message
from selfattn.serving.one_key import KeyView
from selfattn.serving.targets import find
from support.source import tree
from ui import server_limits as limits
from ui import streamlit_hooks as hooks


def events(n: int, name: str = "pick", last: int = 0) -> str:
    return json.dumps([{"event": name, "value": 0}] * (n - 1) + [{"event": name, "value": last}])


# ── What Streamlit does, that the module relies on ───────────────────────────────────────
def test_streamlit_reads_trigger_lists_with_the_deserializer_the_module_replaces():
    source = inspect.getsource(bidi)
    assert "deserializer=deserialize_trigger_list" in source  # looked up in main's namespace at each mount
    assert "json_trigger_value" in source
    limits.install()
    assert bidi.deserialize_trigger_list.selfattn_hook
    assert bidi.deserialize_trigger_list(events(400, last=2)) == [{"event": "pick", "value": 2}]


def test_streamlit_calls_a_components_callback_once_per_event_of_the_list():
    """Why the list must be cut before Streamlit sees it: one callback call per event."""
    source = inspect.getsource(SessionState._dispatch_trigger_callbacks)
    assert "for payload in payloads" in source and "_execute_widget_callback" in source


def test_streamlit_keeps_uploads_in_the_manager_the_module_wraps():
    from streamlit.web.server import server
    from streamlit.web.server.starlette import starlette_routes, starlette_websocket

    assert "MemoryUploadedFileManager(" in inspect.getsource(server)
    assert "upload_mgr.add_file(" in inspect.getsource(starlette_routes)
    assert "runtime.disconnect_session(" in inspect.getsource(starlette_websocket)
    assert isinstance(inspect.getattr_static(Runtime, "uploaded_file_mgr"), property)
    manager = MemoryUploadedFileManager("/_stcore/upload_file")
    assert {"file_storage", "add_file", "remove_file", "remove_session_files"} <= set(dir(manager))


# ── A hook whose target moved fails loudly at start-up ──────────────────────────────────
def _stale_key_script():
    """A setting put while its widget is not drawn, then drawn and typed into, then not drawn again."""
    import streamlit as st

    from ui import streamlit_hooks as hooks

    step = st.session_state.get("step", "put")
    if step == "put":
        st.session_state["k"] = "default"  # its widget not drawn yet: Streamlit keeps it under the key
    elif step == "draw":
        if st.session_state.get("drop"):
            hooks.drop_value_under_key("k")  # ui/state.py's keep, before the widget is made
        st.text_input("k", key="k")
    st.markdown(repr(st.session_state.get("k")))


@pytest.mark.parametrize("drop", [False, True])
def test_a_value_put_before_a_widget_first_ran_is_dropped_and_the_widget_s_own_stays(drop):
    """Streamlit keeps a value put under a widget's key before the widget first ran behind the widget's own value, and
    shows it again once it drops the widget's state (the translator's sentence back to 早上好); the hook drops that
    value alone: the widget's own state (and the key's mapping) stay, so a rerun that stops a run before its widget
    is made loses nothing the browser sent."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_stale_key_script)
    at.session_state["drop"] = drop
    at.run()
    at.session_state["step"] = "draw"
    at.run()
    at.text_input(key="k").set_value("typed").run()
    at.run()  # drawn again: the widget's own value stays, whether the older one was dropped or not
    assert at.markdown[-1].value == "'typed'" and at.text_input(key="k").value == "typed"
    at.session_state["step"] = "gone"
    at.run()
    at.run()  # Streamlit has dropped the widget's state
    assert at.markdown[-1].value == ("None" if drop else "'default'")  # without the hook: the older value is back


def _widgets_script():
    """Every kind of box that asks Streamlit's copy of the session state whether its key holds None, with its key
    absent, None, or a value; and the one-key reads beside the whole copy, for every key the session has."""
    import streamlit as st
    from streamlit.runtime.state import get_session_state

    from selfattn.serving.one_key import KeyView
    from ui import server_limits, streamlit_hooks as hooks

    server_limits.install()
    for key in ("n_none", "s_none", "r_none", "t_none", "a_none", "d_none", "m_none"):
        st.session_state.setdefault(key, None)
    st.session_state.setdefault("n_set", 3.0)
    st.number_input("n", key="n_none")
    st.number_input("n", key="n_set")
    st.number_input("n", key="n_new", value=2.0)
    st.selectbox("s", ["a", "b"], key="s_none")
    st.selectbox("s", ["a", "b"], key="s_new")
    st.radio("r", ["a", "b"], key="r_none")
    st.text_input("t", key="t_none")
    st.text_area("a", key="a_none")
    st.date_input("d", key="d_none")
    st.slider("l", 0, 9, key="l_new")
    st.session_state.setdefault("l_range", (2, 5))
    st.slider("l", 0, 9, key="l_range")  # a range: the box asks what its key holds, not only whether it is None
    st.time_input("m", key="m_none")
    st.button("b", key="b")  # a keyed widget no box reads, and a Components-v2 one (a map's, an editor's)
    from ui.components.matrix_editor import matrix_editor

    matrix_editor("ed", name="x", matrix="X", rows=["1"], cols=["1"], cells=[["1"]], max_chars=[40], labels=[False],
                  rev=0, bad=None, texts={})
    from streamlit.runtime.state.session_state import STREAMLIT_INTERNAL_KEY_PREFIX

    safe = get_session_state()
    whole, one = safe.filtered_state, KeyView(safe, hooks._one_value).filtered_state
    for key in [*whole, "absent", f"{STREAMLIT_INTERNAL_KEY_PREFIX}_absent"]:
        assert (key in one) == (key in whole) and one.get(key) == whole.get(key), key
    assert dict(one) == whole  # walked whole, it is Streamlit's copy
    st.markdown(f"checked {len(whole)}")


def test_a_key_view_reads_one_key_and_is_the_state_s_copy_walked_whole():
    """``KeyView`` without Streamlit: a state whose copy of every key is counted; a key read costs no copy, a walk
    is the copy, and everything else is the state's own."""

    class State:
        copies = 0
        values = {"a": None, "b": 2}

        @property
        def filtered_state(self):
            State.copies += 1
            return dict(self.values)

        def reset_state_value(self, key, value):
            self.values[key] = value

    reads = []
    view = KeyView(State(), lambda state, key: reads.append(key) or state.values[key])
    one = view.filtered_state
    assert "a" in one and one["a"] is None and one.get("b") == 2 and "c" not in one and one.get("c") is None
    assert State.copies == 0 and reads == ["a", "a", "b", "c", "c"]
    assert dict(one) == {"a": None, "b": 2} and len(one) == 2 and State.copies >= 1  # walked whole: the copy
    view.reset_state_value("a", 1)  # what a box calls besides: the state's own
    assert State.values["a"] == 1


def test_a_box_reads_its_own_key_as_streamlit_s_copy_of_the_session_holds_it():
    """The hook (``selfattn.serving.one_key.KeyView``, reading through ``ui.streamlit_hooks._one_value``) answers a box's question, is my key None, for that key alone;
    Streamlit copied every key of the session for it (10-12 times a run on the pages of typed tables). Each kind of
    box that asks, with its key None, set or absent, shows what it shows without the hook, and for every key of the
    session the one-key read is the copy's."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_widgets_script).run()
    assert not at.exception, at.exception
    assert at.number_input(key="n_none").value is None and at.number_input(key="n_set").value == 3.0
    assert at.number_input(key="n_new").value == 2.0
    assert at.selectbox(key="s_none").value is None and at.selectbox(key="s_new").value == "a"
    assert at.radio(key="r_none").value is None and at.text_input(key="t_none").value is None
    assert at.text_area(key="a_none").value is None and at.date_input(key="d_none").value is None
    assert at.slider(key="l_new").value == 0 and at.slider(key="l_range").value == (2, 5)
    assert at.time_input(key="m_none").value is None
    at.number_input(key="n_none").set_value(5.0).run()
    at.selectbox(key="s_none").set_value("b").run()
    assert not at.exception and at.number_input(key="n_none").value == 5.0 and at.selectbox(key="s_none").value == "b"
    assert at.markdown[-1].value.startswith("checked ")
    assert int(at.markdown[-1].value.split()[-1]) >= 12
    import importlib

    for module in hooks.WIDGET_MODULES:  # the boxes read through the hook
        reads = importlib.import_module(f"streamlit.elements.widgets.{module}").get_session_state
        assert getattr(reads, "selfattn_hook", False) and isinstance(reads(), KeyView), module


def test_every_hook_target_is_found_in_this_streamlit():
    found = hooks.check()
    assert len(found) == len(hooks.TARGETS) and all(obj is not None for obj in found.values())


@dataclasses.dataclass
class RenamedWStates:  # Streamlit's table of a session's widgets, as if a release renamed the field read
    states: dict = dataclasses.field(default_factory=dict)
    widget_meta: dict = dataclasses.field(default_factory=dict)


@pytest.mark.parametrize("module, name, stand_in", [
    ("streamlit.runtime.app_session:AppSession", "handle_backmsg", None),
    ("streamlit.runtime.state.session_state", "WStates", RenamedWStates),  # the drawn widgets
    ("streamlit.components.v2.bidi_component.main", "deserialize_trigger_list", None),
    ("streamlit.runtime.scriptrunner.script_runner", "exec_func_with_error_handling", None),
], ids=lambda value: value if isinstance(value, str) and "." not in value else None)
def test_a_hook_whose_target_is_missing_fails_at_start_up_and_changes_nothing(monkeypatch, module, name, stand_in):
    """Before, a missing widget table turned the widget filter off without a word (every id "known")."""
    import importlib

    module, _, cls = module.partition(":")
    owner = getattr(importlib.import_module(module), cls) if cls else importlib.import_module(module)
    if stand_in is None:
        monkeypatch.delattr(owner, name)
    else:
        monkeypatch.setattr(owner, name, stand_in)
    wrapped = []
    monkeypatch.setattr(hooks, "wrap", lambda *args: wrapped.append(args))
    monkeypatch.setattr(limits, "_installed", False)
    with pytest.raises(hooks.HookMissing, match=rf"{cls + '.' if cls else ''}{name}\b"):
        limits.install()
    assert wrapped == [] and limits._installed is False


def test_no_module_of_the_app_but_the_hooks_imports_streamlit_s_internals():
    """The app reaches Streamlit by ``import streamlit as st`` (its public API); every other name is in the hooks."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    files = [root / "app.py", *sorted((root / "ui").rglob("*.py")), *sorted((root / "pages").rglob("*.py"))]
    found = []
    for path in files:
        if path.name == "streamlit_hooks.py":
            continue
        for node in ast.walk(tree(path)):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            found += [f"{path.relative_to(root)}: {n}" for n in names if n.startswith("streamlit.")]
    assert len(files) > 30 and not found, found


def test_a_target_is_found_with_its_parameters_and_fields_or_named_as_missing():
    """The check itself, on the standard library: a function's parameters all and in order, a class's fields
    wherever they are set (a class attribute, or ``self.x =`` in ``__init__``)."""
    import textwrap

    assert find("textwrap:dedent(text)") is textwrap.dedent
    assert find("textwrap:TextWrapper{width, wrap, tabsize}") is textwrap.TextWrapper
    missing = {
        "textwrap:undent(text)": "no textwrap:undent",
        "textwrap.nope:dedent(text)": "no textwrap.nope:dedent",
        "textwrap:dedent(text, width)": r"dedent has \['text'\], the hook needs \['text', 'width'\]",
        "textwrap:TextWrapper{width, colour}": r"TextWrapper has \['width'\], the hook needs \['width', 'colour'\]",
    }
    for target, named in missing.items():
        with pytest.raises(hooks.HookMissing, match=named):
            find(target)


def test_a_target_with_no_parameters_is_found_and_one_with_a_parameter_it_lacks_is_not():
    assert find("os:getcwd()") is __import__("os").getcwd
    with pytest.raises(hooks.HookMissing, match="getcwd"):
        find("os:getcwd(path)")


def test_a_wrapped_target_is_replaced_once_and_keeps_its_name(monkeypatch):
    """``wrap`` (what install routes every hook through): a ``module:Class.method`` found by import, the replacement
    calling the original; a second install leaves the first replacement (never a wrapper around a wrapper)."""
    import sys
    import types

    from selfattn.serving.targets import wrap

    class Box:
        def double(self, x):
            return 2 * x

    original, calls = Box.double, []
    monkeypatch.setitem(sys.modules, "selfattn_wrap_probe", types.SimpleNamespace(Box=Box))
    make = lambda old: lambda self, x: calls.append(x) or old(self, x) + 1  # noqa: E731
    wrap("selfattn_wrap_probe:Box.double", make)
    first = Box.double
    wrap("selfattn_wrap_probe:Box.double", make)
    assert Box.double is first and Box().double(5) == 11 and calls == [5]
    assert Box.double.__name__ == "double" and Box.double.__wrapped__ is original


def test_a_hook_whose_target_changed_its_parameters_fails_at_start_up(monkeypatch):
    from streamlit.runtime.scriptrunner import script_runner

    monkeypatch.setattr(script_runner, "exec_func_with_error_handling", lambda func, ctx, timeout: None)
    with pytest.raises(hooks.HookMissing, match=r"exec_func_with_error_handling has \['func', 'ctx', 'timeout'\]"):
        hooks.check()


# ── Triggers ─────────────────────────────────────────────────────────────────────────────
def test_a_trigger_list_keeps_the_last_event_of_each_name():
    assert policy.read_trigger_list(events(1)) == [{"event": "pick", "value": 0}]
    assert policy.read_trigger_list(events(400, last=2)) == [{"event": "pick", "value": 2}]
    mixed = json.dumps([{"event": "a", "value": 1}, {"event": "b", "value": 2}, {"event": "a", "value": 3}, 7, None])
    assert policy.read_trigger_list(mixed) == [{"event": "b", "value": 2}, {"event": "a", "value": 3}]
    assert policy.read_trigger_list('{"event": "pick", "value": 2}') == [{"event": "pick", "value": 2}]


def test_a_trigger_list_over_its_byte_limit_or_not_events_is_refused_whole():
    assert policy.read_trigger_list(events(37_000)) is None  # ~1 MB: not even parsed
    assert len(events(500)) < policy.MAX_TRIGGER_BYTES and policy.read_trigger_list(events(500))
    for text in (None, "", "not json {", "[]", "null", "[1, 2]", '"pick"', "[" * 5000 + "]" * 5000):
        assert policy.read_trigger_list(text) is None, text[:20] if text else text


def test_a_trigger_list_is_read_in_time_that_does_not_grow_with_repeats():
    flood, most = events(37_000), events(500)
    start = time.process_time()
    for _ in range(100):
        policy.read_trigger_list(flood)
        policy.read_trigger_list(most)
    assert time.process_time() - start < 2.0  # ~0.1 s here; a wide margin for a shared 2-core machine


# ── Uploads ──────────────────────────────────────────────────────────────────────────────
def bounded_manager(monkeypatch) -> MemoryUploadedFileManager:
    """A manager as the app's runtime holds it, its add_file hooked as limits.install hooks the runtime's."""
    from types import SimpleNamespace

    manager = MemoryUploadedFileManager("/_stcore/upload_file")
    runtime = SimpleNamespace(uploaded_file_mgr=manager, disconnect_session=lambda session_id, client=None: None)
    monkeypatch.setattr(Runtime, "exists", staticmethod(lambda: True))
    monkeypatch.setattr(Runtime, "instance", staticmethod(lambda: runtime))
    hooks.install(**limits.hooks_of_the_app())
    assert manager.add_file.selfattn_hook and runtime.disconnect_session.selfattn_hook
    return manager


def test_the_oldest_files_make_room():
    assert policy.room([("a", 10), ("b", 10)], 10) == []
    assert policy.room([(f"f{i}", 1) for i in range(4)], 1) == ["f0"]
    assert policy.room([("a", 3_000_000), ("b", 1_000_000)], 2_000_000) == ["a"]
    assert policy.room([("a", 1)], policy.MAX_BYTES) == ["a"]


def test_a_file_no_uploader_names_is_stale_after_its_grace():
    uploads = policy.Uploads()
    uploads.arrived("s", "old", now=100.0)
    uploads.arrived("s", "new", now=109.0)
    assert uploads.stale("s", ["old", "new", "used"], in_use={"used"}, now=110.0) == ["old"]
    assert uploads.stale("s", ["unknown"], in_use=(), now=110.0) == ["unknown"]  # arrived before this process knew
    uploads.forget("s")
    assert uploads.stale("s", ["new"], in_use=(), now=110.0) == ["new"]


def test_a_session_holds_at_most_four_files_and_four_megabytes_the_newest(monkeypatch):
    manager = bounded_manager(monkeypatch)
    for i in range(40):
        manager.add_file("s1", UploadedFileRec(f"f{i}", "x.csv", "text/csv", b"1" * 2_000_000))
    manager.add_file("s2", UploadedFileRec("g", "y.csv", "text/csv", b"2"))
    held = manager.file_storage["s1"]
    assert list(held) == ["f38", "f39"] and sum(len(f.data) for f in held.values()) <= policy.MAX_BYTES
    for i in range(10):
        manager.add_file("s3", UploadedFileRec(f"h{i}", "z.csv", "text/csv", b"3" * 10))
    assert list(manager.file_storage["s3"]) == ["h6", "h7", "h8", "h9"]
    assert list(manager.file_storage["s2"]) == ["g"]  # another session is untouched
    Runtime.instance().disconnect_session("s1")  # its websocket closed
    assert "s1" not in manager.file_storage  # s2, s3 still held
    assert sum(stat.byte_length for stats in manager.get_stats().values() for stat in stats) == 1 + 40


def test_a_session_whose_disconnect_fails_is_forgotten_all_the_same(monkeypatch):
    manager = bounded_manager(monkeypatch)
    manager.add_file("s9", UploadedFileRec("f", "x.csv", "text/csv", b"1"))
    limits.guard_of("s9")
    assert limits._current_client("s9") == "session:s9"  # no connection here: kept for its next run

    def broken() -> None:
        raise RuntimeError("Streamlit's own handling failed")

    with pytest.raises(RuntimeError):
        limits.forget("s9", broken)
    assert "s9" not in manager.file_storage and "s9" not in limits._guards and "s9" not in limits._clients


def test_files_no_uploader_holds_are_dropped_after_their_grace(monkeypatch):
    manager = bounded_manager(monkeypatch)
    for name in ("old", "used", "new"):
        manager.add_file("s", UploadedFileRec(name, "x.csv", "text/csv", b"1"))
    limits._uploads.arrived("s", "old", now=time.monotonic() - 60)
    limits._uploads.arrived("s", "used", now=time.monotonic() - 60)
    assert limits.drop_unused_uploads("s", {"used"}, manager) == 1
    assert list(manager.file_storage["s"]) == ["used", "new"]  # "new" is on its way to its uploader


def test_a_run_reads_the_session_only_when_it_holds_a_file(monkeypatch):
    import streamlit

    class Unread(dict):  # a session whose values must not be read
        def __iter__(self):
            raise AssertionError("the session was read")

    manager = bounded_manager(monkeypatch)
    monkeypatch.setattr(hooks, "current_session", lambda: "s")
    monkeypatch.setattr(streamlit, "session_state", Unread())
    limits.sweep_session()  # no file held: returns without reading the session
    manager.add_file("s", UploadedFileRec("old", "x.csv", "text/csv", b"1"))
    limits._uploads.arrived("s", "old", now=time.monotonic() - 60)
    monkeypatch.setattr(streamlit, "session_state", {})  # no uploader holds it: dropped
    limits.sweep_session()
    assert not manager.file_storage.get("s")


def test_names_are_shortened_before_they_are_stored(monkeypatch):
    manager = bounded_manager(monkeypatch)
    manager.add_file("s", UploadedFileRec("f", "r" * 4_090 + "-runs.json\n", "text/csv", b"1"))
    name = manager.file_storage["s"]["f"].name
    assert len(name) == MAX_NAME_CHARS and name.endswith("…rr-runs.json"[-13:]) and "\n" not in name
    assert short_name("runs.json") == "runs.json" and short_name("a\u202eb\x00c.csv") == "abc.csv"


def test_an_uploader_naming_a_missing_file_is_an_input_error_in_words():
    import pytest

    from selfattn.errors import InputError
    from ui.widgets import uploaded

    with pytest.raises(InputError) as caught:
        uploaded(DeletedFile("gone"))
    assert caught.value.code == "upload_gone"
    assert uploaded(None) is None


# ── Heavy views ──────────────────────────────────────────────────────────────────────────
def test_heavy_runs_take_turns_and_the_waiting_one_is_told():
    import threading

    said: list[int] = []
    inside, release = threading.Event(), threading.Event()

    def first():
        with line.heavy_turn(said.append, "ip:t"):
            inside.set()
            release.wait(10)

    holder = threading.Thread(target=first)
    holder.start()
    assert inside.wait(10)
    order = []

    def second():
        with line.heavy_turn(said.append, "ip:t"):
            order.append("second ran")

    waiter = threading.Thread(target=second)
    waiter.start()
    time.sleep(0.7)
    assert order == [] and said == [1]  # waiting, and told that one run waits
    release.set()
    holder.join(10)
    waiter.join(10)
    assert order == ["second ran"] and said == [1, 0]  # the note cleared once its turn came


def test_a_heavy_run_that_fails_or_is_stopped_while_waiting_gives_its_place_back():
    import pytest

    with pytest.raises(RuntimeError):
        with line.heavy_turn(lambda n: None, "ip:t"):
            raise RuntimeError("the page failed")
    with line.heavy_turn(lambda n: None, "ip:t"):  # the place was given back

        def stopped(n):
            if n:
                raise KeyboardInterrupt  # what a Streamlit call raises when the visitor left (StopException)

        with pytest.raises(KeyboardInterrupt):
            with line.heavy_turn(stopped, "ip:t"):
                pass
    with line.heavy_turn(lambda n: None, "ip:t"):
        pass
    assert line._turns._line == [] and line._turns._running == 0


class Moved(BaseException):
    """What a Streamlit call raises in a run whose visitor changed something or left (RerunException,
    StopException: BaseExceptions too)."""


def _held_turn():
    """A run holding the one heavy place in another thread, until the returned event is set."""
    import threading

    inside, release = threading.Event(), threading.Event()

    def hold():
        with line.heavy_turn(lambda n: None, "ip:t"):
            inside.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    assert inside.wait(10)
    return holder, release


def _waiter(waiting, outcome: list):
    """A run in another thread, started now, that waits its turn with ``waiting``; ``outcome`` gets "ran",
    or "moved on" when a call of ``waiting`` ended it."""
    import threading

    def run():
        try:
            with line.heavy_turn(waiting, "ip:t"):
                outcome.append("ran")
        except Moved:
            outcome.append("moved on")

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_a_run_whose_visitor_moves_on_just_as_its_turn_comes_gives_the_place_back():
    """A visitor in line changes something; the run's wait ends at the Streamlit call that clears its note
    (its turn came first). That place used to stay taken for good: every heavy view of the process then
    waited forever (found by a whole-suite run: Sentence embeddings never showed a typed sentence)."""
    import pytest

    holder, release = _held_turn()
    outcome = []

    def moved_on(n):
        if n == 0:
            raise Moved

    thread = _waiter(moved_on, outcome)
    time.sleep(0.3)
    release.set()
    holder.join(10)
    thread.join(10)
    assert outcome == ["moved on"]
    assert line._turns._running == 0 and line._turns._line == []  # the place is free again
    with pytest.raises(Moved):
        with line.heavy_turn(moved_on, "ip:t"):  # served at once: nothing to clear, and nothing may leak either
            raise Moved
    assert line._turns._running == 0


def test_a_waiting_run_hears_from_streamlit_while_its_place_stays_the_same(monkeypatch):
    """A run first in line behind a long one still makes a Streamlit call every NOTE_EVERY_S, so a visitor
    who left or changed something leaves the line then, not when the long run ends (it used to call only
    when its place changed, and then ran its whole page for nobody)."""
    monkeypatch.setattr(line, "NOTE_EVERY_S", 0.2)
    holder, release = _held_turn()
    said, outcome = [], []

    def leaves_at_the_third_note(n):
        said.append(n)
        if len(said) == 3:
            raise Moved

    _waiter(leaves_at_the_third_note, outcome).join(5)
    try:
        assert outcome == ["moved on"] and said == [1, 1, 1]  # told its place again and again, then gone
        assert line._turns._line == [] and line._turns._running == 1  # the long run still holds its place
    finally:
        release.set()
        holder.join(10)
    assert line._turns._running == 0


def test_a_run_can_step_out_of_its_turn_for_work_bounded_on_its_own():
    """A benchmark sweep (seconds, one at a time for all replicas) gives its place back while it runs."""
    import threading

    ran = []
    with line.heavy_turn(lambda n: None, "ip:t"):
        with line.outside_heavy_turn():
            def view():
                with line.heavy_turn(lambda n: None, "ip:t"):
                    ran.append("another view")

            other = threading.Thread(target=view)
            other.start()
            other.join(5)
            assert ran == ["another view"]  # it did not wait for the sweep
        assert line._holder.place.held is True  # the place is taken again
    with line.outside_heavy_turn():  # outside any turn: nothing to give back
        pass
    assert line._turns._running == 0  # and every place is free again


def test_the_line_is_first_come_first_served_and_a_client_holds_one_place():
    """Issue 36: a client with many sockets waits as one visitor does; the others keep their order."""
    turns = line.Turns(1)
    first = turns.join("ip:a", "s1")
    assert turns.try_enter(first, 0) is True
    tickets = {name: turns.join(client, session) for name, client, session in
               [("a2", "ip:a", "s2"), ("a3", "ip:a", "s3"), ("b1", "ip:b", "s4"), ("a4", "ip:a", "s5"), ("c1", "ip:c", "s6")]}
    order = sorted(tickets, key=lambda name: turns.place(tickets[name]))
    assert order == ["a2", "b1", "c1", "a3", "a4"]  # b and c wait behind one of a's runs, not three
    assert turns.try_enter(tickets["b1"], 0) is False  # a place is taken
    turns.leave(client="ip:a")
    assert turns.try_enter(tickets["b1"], 0) is False  # not b's turn: a2 came first
    assert turns.try_enter(tickets["a2"], 0) is True
    again = turns.join("ip:a", "s3")  # session s3's next run takes the place of its old one
    assert turns.try_enter(tickets["a3"], 0) is None
    assert turns.place(again) == 4  # behind b1, c1 and a4 (a4 arrived before it)


# ── Websocket messages (issue 36) ────────────────────────────────────────────────────────
def test_streamlit_answers_these_messages_itself_in_the_handler_the_module_wraps():
    """If Streamlit adds a message kind or moves its handling, this fails: the allow-list must be revisited."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.backend_operation_handler import DeferredFileHandler
    from streamlit.runtime.state.session_state import WStates

    kinds = {f.name for f in BackMsg.DESCRIPTOR.oneofs_by_name["type"].fields}
    debug = {"debug_disconnect_websocket", "debug_shutdown_runtime"}  # development mode only; refused here too
    assert kinds == policy.VISITOR_MESSAGES | policy.DEVELOPER_MESSAGES | debug, kinds
    limits.install()
    assert AppSession.handle_backmsg.selfattn_hook and DeferredFileHandler.handle.selfattn_hook
    source = inspect.getsource(AppSession)
    assert "self._session_state = SessionState()" in source
    assert "widget_metadata" in {f for f in WStates.__dataclass_fields__}
    assert "execute_deferred" in inspect.getsource(DeferredFileHandler)


def _msg(kind: str, **fields):
    from streamlit.proto.BackMsg_pb2 import BackMsg

    msg = BackMsg()
    if kind == "rerun_script":
        for wid in fields.get("widgets", []):
            msg.rerun_script.widget_states.widgets.add(id=wid)
        msg.rerun_script.query_string = ""
    elif kind == "file_urls_request":
        msg.file_urls_request.file_names.extend(fields["names"])
    elif kind == "backend_operation_request":
        getattr(msg.backend_operation_request, fields["op"]).SetInParent()
    else:
        setattr(msg, kind, True)
    return msg


def test_each_kind_of_message_is_taken_or_refused_by_its_rule():
    def check(msg, hosted=True):
        return policy.check_message(msg, policy.SessionGuard(), hosted=hosted)

    assert check(Message("load_git_info")) is not None
    assert check(Message("clear_cache")) is not None
    assert check(Message("set_run_on_save")) is not None
    assert check(Message("load_git_info"), hosted=False) is None  # the developer's, at home
    assert "debug_shutdown_runtime" in check(Message("debug_shutdown_runtime"), hosted=False)
    assert check(Message("app_heartbeat")) is None
    assert check(Message("file_urls_request", file_names=1)) is None
    assert "file names" in check(Message("file_urls_request", file_names=480_000))
    assert check(Message("backend_operation_request", operation="deferred_file")) is None
    assert "install_skills" in check(Message("backend_operation_request", operation="install_skills"))
    assert "widget states" in check(Message("rerun_script", widget_states=policy.MAX_WIDGET_STATES + 1))
    assert check(Message("rerun_script", widget_states=policy.MAX_WIDGET_STATES)) is None


def test_the_hooks_read_a_message_as_the_rules_do_and_drop_widgets_never_drawn():
    assert backmsg.read(_msg("file_urls_request", names=["a.csv"] * 3)) == Message("file_urls_request", file_names=3)
    assert backmsg.read(_msg("backend_operation_request", op="install_skills")).operation == "install_skills"
    assert backmsg.read(_msg("load_git_info")) == Message("load_git_info")
    mixed = _msg("rerun_script", widgets=["known", "never drawn", "known too"])
    assert backmsg.read(mixed) == Message("rerun_script", widget_states=3)
    assert backmsg.keep_widgets(mixed, {"known", "known too"}) == 1
    assert [w.id for w in mixed.rerun_script.widget_states.widgets] == ["known", "known too"]


def test_a_widget_state_of_another_kind_than_the_widget_takes_is_dropped():
    """Streamlit hands a widget's state on as it came: a text sent for a switch or an expander reached the page, whose
    run failed on it (a traceback). With the widgets' metadata, such states are dropped like a widget never drawn."""
    from types import SimpleNamespace

    sent = _msg("rerun_script", widgets=["switch", "box", "gone", "whole", "number"])
    states = sent.rerun_script.widget_states.widgets
    states[0].bool_value = True
    states[1].string_value = "open"
    states[3].int_value = 3  # a number box of whole numbers: the browser sends an int, Streamlit's metadata says double
    states[4].string_value = "3"
    takes = {"switch": SimpleNamespace(value_type="bool_value"), "box": SimpleNamespace(value_type="bool_value"),
             "whole": SimpleNamespace(value_type="double_value"), "number": SimpleNamespace(value_type="double_value")}
    assert backmsg.keep_widgets(sent, takes) == 3
    assert [w.id for w in sent.rerun_script.widget_states.widgets] == ["switch", "whole"]


def test_a_session_sends_a_bounded_number_of_messages_a_second():
    guard = policy.SessionGuard()
    beat = Message("app_heartbeat")
    taken = sum(policy.check_message(beat, guard, hosted=True, now=100.0) is None for _ in range(1000))
    assert taken == policy.MESSAGE_BURST
    later = sum(policy.check_message(beat, guard, hosted=True, now=101.0) is None for _ in range(1000))
    assert later == policy.MESSAGES_PER_S  # a second later, a second's worth


def test_a_session_builds_one_download_at_a_time_and_the_same_file_once_a_run():
    import asyncio

    from streamlit.proto.BackMsg_pb2 import BackendOperationRequest
    from streamlit.proto.ForwardMsg_pb2 import BackendOperationResponse

    built, at_once, running = [], [], [0]

    async def build(self, request, session_id):
        running[0] += 1
        at_once.append(running[0])
        await asyncio.sleep(0.01)
        built.append(request.deferred_file.file_id)
        running[0] -= 1
        answer = BackendOperationResponse(request_id=request.request_id)
        answer.deferred_file.url = f"/media/{request.deferred_file.file_id}"
        return answer

    handle = hooks._download(build, limits.one_download_at_a_time)  # as installed on DeferredFileHandler.handle

    async def clicks():
        requests = []
        for k in range(200):
            r = BackendOperationRequest(request_id=f"r{k}")
            r.deferred_file.file_id = "zip" if k % 2 else "csv"
            requests.append(r)
        return await asyncio.gather(*(handle(None, r, "session-1") for r in requests))

    answers = asyncio.run(clicks())
    assert sorted(built) == ["csv", "zip"] and max(at_once) == 1
    assert [a.request_id for a in answers] == [f"r{k}" for k in range(200)]
    assert answers[1].deferred_file.url == "/media/zip"
    policy.check_message(Message("rerun_script"), limits.guard_of("session-1"), hosted=True)  # a new run
    asyncio.run(clicks())
    assert len(built) == 4  # built again after the run: its buttons may offer other numbers


# ── Issue 55: every run waits its turn, in a fair order; the last edit stands ──────────────
def test_streamlit_runs_every_run_through_the_two_calls_the_module_wraps():
    """Every run, whole or a fragment's, calls exec_func_with_error_handling once (its end gives the place back)
    and, inside it, ctx.on_script_start() after the widgets' callbacks and before the page or a fragment runs
    (the run waits there); ctx.yield_check raises when the visitor moved on; a page's hash is its url path's."""
    from streamlit.navigation.page import StreamlitPage
    from streamlit.runtime.scriptrunner import script_runner
    from streamlit.runtime.scriptrunner_utils import script_requests
    from streamlit.runtime.scriptrunner_utils.script_run_context import ScriptRunContext
    from streamlit.util import calc_hash

    source = inspect.getsource(script_runner.ScriptRunner._run_script)
    assert "= exec_func_with_error_handling(code_to_exec, ctx)" in source
    assert source.index("on_script_will_rerun(") < source.index("ctx.on_script_start()") < source.index(
        "wrapped_fragment()") and source.index("ctx.on_script_start()") < source.index("exec(code, module.__dict__)")
    assert "yield_check=self._maybe_handle_execution_control_request" in source
    assert "yield_check" in ScriptRunContext.__dataclass_fields__
    assert "calc_hash(self._url_path)" in inspect.getsource(StreamlitPage)
    assert calc_hash("seq2seq") == calc_hash("seq2seq") != calc_hash("playground")
    assert "old_states" in inspect.signature(script_requests._coalesce_widget_states).parameters
    limits.install()
    assert script_runner.exec_func_with_error_handling.selfattn_hook
    assert ScriptRunContext.on_script_start.selfattn_hook


def test_a_run_is_heavy_by_the_page_it_asks_for():
    from types import SimpleNamespace

    from streamlit.util import calc_hash

    def run(page_hash: str, name: str | None = None, fragment=None):
        """The Run the hook hands over as a run with this context starts."""
        manager = SimpleNamespace(main_script_hash="main", intended_page_name=name)
        ctx = SimpleNamespace(session_id="s", page_script_hash=page_hash, pages_manager=manager,
                              fragment_ids_this_run=fragment, yield_check=lambda: None)
        started = []
        hooks._started(lambda self: None, started.append)(ctx)
        assert started[0].fragment == bool(fragment) and started[0].session == "s"
        return started[0]

    assert limits.run_is_heavy(run(calc_hash("seq2seq"), fragment=["f1"]))  # an edit of the Encoder–decoder
    assert limits.run_is_heavy(run(calc_hash("block")))
    assert not limits.run_is_heavy(run(calc_hash("playground"), fragment=["f1"]))
    assert limits.run_is_heavy(run("main", "seq2seq"))  # a first open: the page by its name
    assert not limits.run_is_heavy(run("main", "playground")) and not limits.run_is_heavy(run("main"))


def test_a_new_visitor_goes_before_a_flooding_client_and_a_flooding_session():
    turns = line.Turns(1)
    assert turns.try_enter(turns.join("ip:x", "running"), 0) is True
    for k in range(10):
        turns.charge("ip:flood", f"f{k}", 0.3)  # a client that used CPU lately (each session under budget)
    turns.charge("ip:flood", "f0", line.SESSION_BUDGET_S)  # and one of its sessions over budget
    flood = [turns.join("ip:flood", f"f{k}") for k in range(10)]
    honest = turns.join("ip:new", "n1")
    assert turns.place(honest) == 1 and [turns.place(t) for t in flood[1:]] == list(range(2, 11))
    assert turns.place(flood[0]) == 11  # over budget: behind every other run
    # one address, a class: its sessions take turns in order, a session over budget behind every other run;
    # another address that used less goes first, once
    klass = line.Turns(1)
    assert klass.try_enter(klass.join("ip:school", "running"), 0) is True
    klass.charge("ip:school", "flooder", line.SESSION_BUDGET_S + 1)
    klass.charge("ip:other", "o1", 0.5)
    flooder = klass.join("ip:school", "flooder")
    students = [klass.join("ip:school", f"s{k}") for k in range(3)]
    other = klass.join("ip:other", "o1")
    assert klass.place(other) == 1 and [klass.place(t) for t in students] == [2, 3, 4]
    assert klass.place(flooder) == 5


def test_usage_halves_and_stays_bounded():
    usage = line.Usage(half_life=10.0, most=8)
    usage.add(("session", "a"), 4.0, now=100.0)
    assert usage.of(("session", "a"), now=110.0) == pytest.approx(2.0)
    usage.add(("session", "a"), 1.0, now=110.0)
    assert usage.of(("session", "a"), now=110.0) == pytest.approx(3.0)
    for k in range(100):
        usage.add(("session", f"s{k}"), 0.01 * k, now=120.0)
    assert len(usage) <= 8 and usage.of(("session", "s99"), now=120.0) > 0  # the least used went first


def test_light_runs_pass_a_heavy_one_waiting_and_over_budget_runs_take_one_place():
    turns = line.Turns(2, 1)
    assert turns.try_enter(turns.join("ip:a", "h1", heavy=True), 0) is True
    heavy = turns.join("ip:b", "h2", heavy=True)
    light = turns.join("ip:c", "l1")
    assert turns.try_enter(heavy, 0) is False and turns.try_enter(light, 0) is True  # the heavy place is taken
    turns.leave(heavy=True, client="ip:a")
    turns.leave(client="ip:c")
    turns.charge("ip:f", "f1", line.SESSION_BUDGET_S + 1)
    turns.charge("ip:f", "f2", line.SESSION_BUDGET_S + 1)
    first, second = turns.join("ip:f", "f1"), turns.join("ip:f", "f2")
    assert turns.try_enter(heavy, 0) is True  # under budget: first, though it came before them anyway
    turns.leave(heavy=True, over=turns.over_budget(heavy), client="ip:b")
    assert turns.try_enter(first, 0) is True and turns.over_budget(first) is True
    assert turns.try_enter(second, 0) is False  # a place is free, but over-budget runs take one at most
    turns.leave(over=True, client="ip:f")
    assert turns.try_enter(second, 0) is True


def test_a_client_holds_one_place_and_the_other_stays_free_for_the_next_client():
    """A flooding client's runs go one at a time (line.CLIENT_AT_ONCE): its second run waits with a place free, the
    next client's run takes that place, and the client's next run enters once its first gives its place back."""
    turns = line.Turns(2, 1, client_at_once=line.CLIENT_AT_ONCE)
    assert line.CLIENT_AT_ONCE == 1
    flood = [turns.join("ip:f", f"f{k}") for k in range(4)]
    assert turns.try_enter(flood[0], 0) is True
    assert turns.try_enter(flood[1], 0) is False  # a place is free, but not for this client
    honest = turns.join("ip:h", "h1")
    assert turns.try_enter(honest, 0) is True  # the free place: the next client's
    turns.leave(client="ip:f")
    assert turns.try_enter(flood[1], 0) is True and turns.try_enter(flood[2], 0) is False
    turns.leave(client="ip:h")
    turns.leave(client="ip:f")
    assert turns.try_enter(flood[2], 0) is True
    turns.leave(client="ip:f")
    assert turns._running == 0 and turns._clients == {}  # every place and every client's count given back


def _rerun(*widgets, fragment: str = ""):
    from streamlit.proto.BackMsg_pb2 import BackMsg

    msg = BackMsg()
    msg.rerun_script.fragment_id = fragment
    for wid, kind, value in widgets:
        setattr(msg.rerun_script.widget_states.widgets.add(id=wid), kind, value)
    return msg


def test_the_newest_rerun_keeps_the_older_ones_clicks():
    older = _rerun(("cell", "string_value", "40"), ("button", "trigger_value", True), fragment="f")
    newer = _rerun(("cell", "string_value", "45"), ("button", "trigger_value", False), fragment="f")
    merged = backmsg.newest_rerun(older, newer, hooks.coalesce_widget_states)
    states = {w.id: w for w in merged.rerun_script.widget_states.widgets}
    assert states["cell"].string_value == "45" and states["button"].trigger_value is True
    assert merged.rerun_script.fragment_id == "f"
    merged = backmsg.newest_rerun(_rerun(fragment="f"), _rerun(fragment="g"), hooks.coalesce_widget_states)
    assert merged.rerun_script.fragment_id == ""


def test_a_burst_over_the_rate_ends_with_its_last_rerun():
    """45 edits at once: 40 go on as they come (the burst), the other five are kept as one rerun, the newest,
    sent on once the session's budget holds a message again (before, they were dropped: the page kept edit 40)."""
    import threading
    from types import SimpleNamespace

    sent, done = [], threading.Event()

    def original(session, msg):
        sent.append(int(msg.rerun_script.widget_states.widgets[0].string_value))
        if sent[-1] == 45:
            done.set()

    def handle(session, msg):  # as installed on AppSession.handle_backmsg
        return limits.handle_message(session, msg, lambda m: original(session, m))

    session = SimpleNamespace(id="burst-session", _session_state=SimpleNamespace(
        _new_widget_state=SimpleNamespace(widget_metadata={"cell": None})))
    try:
        for k in range(1, 46):
            handle(session, _rerun(("cell", "string_value", str(k))))
        assert done.wait(5)
        assert sent[:40] == list(range(1, 41)) and sent[-1] == 45 and sent == sorted(set(sent))  # in order, once
        assert len(sent) < 45  # (41 here; one more for each 50 ms the loop took on a busy machine)
        assert limits.guard_of("burst-session").pending is None
    finally:
        limits._guards.pop("burst-session", None)
