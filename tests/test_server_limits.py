"""Issue 29: the bounds ui/server_limits.py puts on one message and one upload, and the Streamlit
internals they rely on, pinned: each test here fails when Streamlit changes what the module wraps.

The attacks themselves, against a real server, are in tests/test_hostile.py (trigger floods) and
tests/test_hostile_heads.py (upload floods, long names, missing files).
"""

from __future__ import annotations

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
from ui import server_limits as limits


def events(n: int, name: str = "pick", last: int = 0) -> str:
    return json.dumps([{"event": name, "value": 0}] * (n - 1) + [{"event": name, "value": last}])


# ── What Streamlit does, that the module relies on ───────────────────────────────────────
def test_streamlit_reads_trigger_lists_with_the_deserializer_the_module_replaces():
    source = inspect.getsource(bidi)
    assert "deserializer=deserialize_trigger_list" in source  # looked up in main's namespace at each mount
    assert "json_trigger_value" in source
    limits.install()
    assert bidi.deserialize_trigger_list is limits.read_trigger_list


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


# ── Triggers ─────────────────────────────────────────────────────────────────────────────
def test_a_trigger_list_keeps_the_last_event_of_each_name():
    assert limits.read_trigger_list(events(1)) == [{"event": "pick", "value": 0}]
    assert limits.read_trigger_list(events(400, last=2)) == [{"event": "pick", "value": 2}]
    mixed = json.dumps([{"event": "a", "value": 1}, {"event": "b", "value": 2}, {"event": "a", "value": 3}, 7, None])
    assert limits.read_trigger_list(mixed) == [{"event": "b", "value": 2}, {"event": "a", "value": 3}]
    assert limits.read_trigger_list('{"event": "pick", "value": 2}') == [{"event": "pick", "value": 2}]


def test_a_trigger_list_over_its_byte_limit_or_not_events_is_refused_whole():
    assert limits.read_trigger_list(events(37_000)) is None  # ~1 MB: not even parsed
    assert len(events(500)) < limits.MAX_TRIGGER_BYTES and limits.read_trigger_list(events(500))
    for text in (None, "", "not json {", "[]", "null", "[1, 2]", '"pick"', "[" * 5000 + "]" * 5000):
        assert limits.read_trigger_list(text) is None, text[:20] if text else text


def test_a_trigger_list_is_read_in_time_that_does_not_grow_with_repeats():
    flood, most = events(37_000), events(500)
    start = time.process_time()
    for _ in range(100):
        limits.read_trigger_list(flood)
        limits.read_trigger_list(most)
    assert time.process_time() - start < 2.0  # ~0.1 s here; a wide margin for a shared 2-core machine


# ── Uploads ──────────────────────────────────────────────────────────────────────────────
def bounded_manager() -> MemoryUploadedFileManager:
    manager = MemoryUploadedFileManager("/_stcore/upload_file")
    manager.add_file = limits._bounded_add_file(manager)
    return manager


def test_a_session_holds_at_most_four_files_and_four_megabytes_the_newest():
    manager = bounded_manager()
    for i in range(40):
        manager.add_file("s1", UploadedFileRec(f"f{i}", "x.csv", "text/csv", b"1" * 2_000_000))
    manager.add_file("s2", UploadedFileRec("g", "y.csv", "text/csv", b"2"))
    held = manager.file_storage["s1"]
    assert list(held) == ["f38", "f39"] and sum(len(f.data) for f in held.values()) <= limits.MAX_BYTES
    for i in range(10):
        manager.add_file("s3", UploadedFileRec(f"h{i}", "z.csv", "text/csv", b"3" * 10))
    assert list(manager.file_storage["s3"]) == ["h6", "h7", "h8", "h9"]
    assert list(manager.file_storage["s2"]) == ["g"]  # another session is untouched
    limits._forget(manager, "s1")
    assert "s1" not in manager.file_storage  # s2, s3 still held
    assert sum(stat.byte_length for stats in manager.get_stats().values() for stat in stats) == 1 + 40


def test_files_no_uploader_holds_are_dropped_after_their_grace():
    manager = bounded_manager()
    for name in ("old", "used", "new"):
        manager.add_file("s", UploadedFileRec(name, "x.csv", "text/csv", b"1"))
    limits._uploaded_at[("s", "old")] = limits._uploaded_at[("s", "used")] = time.monotonic() - 60
    assert limits.drop_unused_uploads("s", {"used"}, manager) == 1
    assert list(manager.file_storage["s"]) == ["used", "new"]  # "new" is on its way to its uploader


def test_a_run_reads_the_session_only_when_it_holds_a_file(monkeypatch):
    from types import SimpleNamespace

    import streamlit
    from streamlit.runtime.scriptrunner_utils import script_run_context

    class Unread(dict):  # a session whose values must not be read
        def __iter__(self):
            raise AssertionError("the session was read")

    manager = bounded_manager()
    monkeypatch.setattr(Runtime, "exists", staticmethod(lambda: True))
    monkeypatch.setattr(Runtime, "instance", staticmethod(lambda: SimpleNamespace(uploaded_file_mgr=manager)))
    monkeypatch.setattr(script_run_context, "get_script_run_ctx", lambda: SimpleNamespace(session_id="s"))
    monkeypatch.setattr(streamlit, "session_state", Unread())
    limits.sweep_session()  # no file held: returns without reading the session
    manager.add_file("s", UploadedFileRec("old", "x.csv", "text/csv", b"1"))
    limits._uploaded_at[("s", "old")] = time.monotonic() - 60
    monkeypatch.setattr(streamlit, "session_state", {})  # no uploader holds it: dropped
    limits.sweep_session()
    assert not manager.file_storage.get("s")


def test_names_are_shortened_before_they_are_stored():
    manager = bounded_manager()
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
        with limits.heavy_turn(said.append):
            inside.set()
            release.wait(10)

    holder = threading.Thread(target=first)
    holder.start()
    assert inside.wait(10)
    order = []

    def second():
        with limits.heavy_turn(said.append):
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
        with limits.heavy_turn(lambda n: None):
            raise RuntimeError("the page failed")
    with limits.heavy_turn(lambda n: None):  # the place was given back

        def stopped(n):
            if n:
                raise KeyboardInterrupt  # what a Streamlit call raises when the visitor left (StopException)

        with pytest.raises(KeyboardInterrupt):
            with limits.heavy_turn(stopped):
                pass
    with limits.heavy_turn(lambda n: None):
        pass
    assert limits._turns._line == [] and limits._turns._running == 0


class Moved(BaseException):
    """What a Streamlit call raises in a run whose visitor changed something or left (RerunException,
    StopException: BaseExceptions too)."""


def _held_turn():
    """A run holding the one heavy place in another thread, until the returned event is set."""
    import threading

    inside, release = threading.Event(), threading.Event()

    def hold():
        with limits.heavy_turn(lambda n: None):
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
            with limits.heavy_turn(waiting):
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
    assert limits._turns._running == 0 and limits._turns._line == []  # the place is free again
    with pytest.raises(Moved):
        with limits.heavy_turn(moved_on):  # served at once: nothing to clear, and nothing may leak either
            raise Moved
    assert limits._turns._running == 0


def test_a_waiting_run_hears_from_streamlit_while_its_place_stays_the_same(monkeypatch):
    """A run first in line behind a long one still makes a Streamlit call every NOTE_EVERY_S, so a visitor
    who left or changed something leaves the line then, not when the long run ends (it used to call only
    when its place changed, and then ran its whole page for nobody)."""
    monkeypatch.setattr(limits, "NOTE_EVERY_S", 0.2)
    holder, release = _held_turn()
    said, outcome = [], []

    def leaves_at_the_third_note(n):
        said.append(n)
        if len(said) == 3:
            raise Moved

    _waiter(leaves_at_the_third_note, outcome).join(5)
    try:
        assert outcome == ["moved on"] and said == [1, 1, 1]  # told its place again and again, then gone
        assert limits._turns._line == [] and limits._turns._running == 1  # the long run still holds its place
    finally:
        release.set()
        holder.join(10)
    assert limits._turns._running == 0


def test_a_run_can_step_out_of_its_turn_for_work_bounded_on_its_own():
    """A benchmark sweep (seconds, one at a time for all replicas) gives its place back while it runs."""
    import threading

    ran = []
    with limits.heavy_turn(lambda n: None):
        with limits.outside_heavy_turn():
            def view():
                with limits.heavy_turn(lambda n: None):
                    ran.append("another view")

            other = threading.Thread(target=view)
            other.start()
            other.join(5)
            assert ran == ["another view"]  # it did not wait for the sweep
        assert limits._holder.place.held is True  # the place is taken again
    with limits.outside_heavy_turn():  # outside any turn: nothing to give back
        pass
    assert limits._turns._running == 0  # and every place is free again


def test_the_line_is_first_come_first_served_and_a_client_holds_one_place():
    """Issue 36: a client with many sockets waits as one visitor does; the others keep their order."""
    turns = limits.Turns(1)
    first = turns.join("ip:a", "s1")
    assert turns.try_enter(first, 0) is True
    tickets = {name: turns.join(client, session) for name, client, session in
               [("a2", "ip:a", "s2"), ("a3", "ip:a", "s3"), ("b1", "ip:b", "s4"), ("a4", "ip:a", "s5"), ("c1", "ip:c", "s6")]}
    order = sorted(tickets, key=lambda name: turns.place(tickets[name]))
    assert order == ["a2", "b1", "c1", "a3", "a4"]  # b and c wait behind one of a's runs, not three
    assert turns.try_enter(tickets["b1"], 0) is False  # a place is taken
    turns.leave()
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
    assert kinds == limits.VISITOR_MESSAGES | limits.DEVELOPER_MESSAGES | debug, kinds
    limits.install()
    assert AppSession.handle_backmsg.selfattn_bounded and DeferredFileHandler.handle.selfattn_bounded
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
    check = limits.check_message
    guard = limits.SessionGuard()
    assert check(_msg("load_git_info"), guard, set(), hosted=True) is not None
    assert check(_msg("clear_cache"), guard, set(), hosted=True) is not None
    assert check(_msg("load_git_info"), guard, set(), hosted=False) is None  # the developer's, at home
    assert check(_msg("app_heartbeat"), guard, set(), hosted=True) is None
    assert check(_msg("file_urls_request", names=["a.csv"]), guard, set(), hosted=True) is None
    assert "file names" in check(_msg("file_urls_request", names=["a.csv"] * 480_000), guard, set(), hosted=True)
    assert check(_msg("backend_operation_request", op="deferred_file"), guard, set(), hosted=True) is None
    assert "install_skills" in check(_msg("backend_operation_request", op="install_skills"), guard, set(), hosted=True)
    too_many = _msg("rerun_script", widgets=[f"w{i}" for i in range(limits.MAX_WIDGET_STATES + 1)])
    assert "widget states" in check(too_many, guard, {"w1"}, hosted=True)
    mixed = _msg("rerun_script", widgets=["known", "never drawn", "known too"])
    assert check(mixed, guard, {"known", "known too"}, hosted=True) is None
    assert [w.id for w in mixed.rerun_script.widget_states.widgets] == ["known", "known too"]


def test_a_session_sends_a_bounded_number_of_messages_a_second():
    guard = limits.SessionGuard()
    beat = _msg("app_heartbeat")
    taken = sum(limits.check_message(beat, guard, set(), hosted=True, now=100.0) is None for _ in range(1000))
    assert taken == limits.MESSAGE_BURST
    later = sum(limits.check_message(beat, guard, set(), hosted=True, now=101.0) is None for _ in range(1000))
    assert later == limits.MESSAGES_PER_S  # a second later, a second's worth


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

    handle = limits._one_download_at_a_time(build)

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
    limits.check_message(_msg("rerun_script"), limits.guard_of("session-1"), set(), hosted=True)  # a new run
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
    assert script_runner.exec_func_with_error_handling.selfattn_bounded
    assert ScriptRunContext.on_script_start.selfattn_bounded


def test_a_run_is_heavy_by_the_page_it_asks_for():
    from types import SimpleNamespace

    from streamlit.util import calc_hash

    def ctx(page_hash: str, name: str = "", fragment=None):
        manager = SimpleNamespace(main_script_hash="main", intended_page_name=name)
        return SimpleNamespace(page_script_hash=page_hash, pages_manager=manager, fragment_ids_this_run=fragment)

    assert limits._run_is_heavy(ctx(calc_hash("seq2seq"), fragment=["f1"]))  # an edit of the Encoder–decoder
    assert limits._run_is_heavy(ctx(calc_hash("block")))
    assert not limits._run_is_heavy(ctx(calc_hash("playground"), fragment=["f1"]))
    assert limits._run_is_heavy(ctx("main", "seq2seq"))  # a first open: the page by its name
    assert not limits._run_is_heavy(ctx("main", "playground")) and not limits._run_is_heavy(ctx("main", ""))


def test_a_new_visitor_goes_before_a_flooding_client_and_a_flooding_session():
    turns = limits.Turns(1)
    assert turns.try_enter(turns.join("ip:x", "running"), 0) is True
    for k in range(10):
        turns.charge("ip:flood", f"f{k}", 0.3)  # a client that used CPU lately (each session under budget)
    turns.charge("ip:flood", "f0", limits.SESSION_BUDGET_S)  # and one of its sessions over budget
    flood = [turns.join("ip:flood", f"f{k}") for k in range(10)]
    honest = turns.join("ip:new", "n1")
    assert turns.place(honest) == 1 and [turns.place(t) for t in flood[1:]] == list(range(2, 11))
    assert turns.place(flood[0]) == 11  # over budget: behind every other run
    # one address, a class: its sessions take turns in order, a session over budget behind every other run;
    # another address that used less goes first, once
    klass = limits.Turns(1)
    assert klass.try_enter(klass.join("ip:school", "running"), 0) is True
    klass.charge("ip:school", "flooder", limits.SESSION_BUDGET_S + 1)
    klass.charge("ip:other", "o1", 0.5)
    flooder = klass.join("ip:school", "flooder")
    students = [klass.join("ip:school", f"s{k}") for k in range(3)]
    other = klass.join("ip:other", "o1")
    assert klass.place(other) == 1 and [klass.place(t) for t in students] == [2, 3, 4]
    assert klass.place(flooder) == 5


def test_usage_halves_and_stays_bounded():
    usage = limits.Usage(half_life=10.0, most=8)
    usage.add(("session", "a"), 4.0, now=100.0)
    assert usage.of(("session", "a"), now=110.0) == pytest.approx(2.0)
    usage.add(("session", "a"), 1.0, now=110.0)
    assert usage.of(("session", "a"), now=110.0) == pytest.approx(3.0)
    for k in range(100):
        usage.add(("session", f"s{k}"), 0.01 * k, now=120.0)
    assert len(usage) <= 8 and usage.of(("session", "s99"), now=120.0) > 0  # the least used went first


def test_light_runs_pass_a_heavy_one_waiting_and_over_budget_runs_take_one_place():
    turns = limits.Turns(2, 1)
    assert turns.try_enter(turns.join("ip:a", "h1", heavy=True), 0) is True
    heavy = turns.join("ip:b", "h2", heavy=True)
    light = turns.join("ip:c", "l1")
    assert turns.try_enter(heavy, 0) is False and turns.try_enter(light, 0) is True  # the heavy place is taken
    turns.leave(heavy=True)
    turns.leave()
    turns.charge("ip:f", "f1", limits.SESSION_BUDGET_S + 1)
    turns.charge("ip:f", "f2", limits.SESSION_BUDGET_S + 1)
    first, second = turns.join("ip:f", "f1"), turns.join("ip:f", "f2")
    assert turns.try_enter(heavy, 0) is True  # under budget: first, though it came before them anyway
    turns.leave(heavy=True, over=turns.over_budget(heavy))
    assert turns.try_enter(first, 0) is True and turns.over_budget(first) is True
    assert turns.try_enter(second, 0) is False  # a place is free, but over-budget runs take one at most
    turns.leave(over=True)
    assert turns.try_enter(second, 0) is True


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
    merged = limits.newest_rerun(older, newer)
    states = {w.id: w for w in merged.rerun_script.widget_states.widgets}
    assert states["cell"].string_value == "45" and states["button"].trigger_value is True
    assert merged.rerun_script.fragment_id == "f"
    assert limits.newest_rerun(_rerun(fragment="f"), _rerun(fragment="g")).rerun_script.fragment_id == ""


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

    handle = limits._guarded_backmsg(original)
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
