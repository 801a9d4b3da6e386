"""The browser tests' wait for a page's runs (``tests/browser.py`` ``RunWatch``), frame by frame, on the messages
Streamlit's frontend and server really exchange: a rerun asked for is waited for until a run that started after it has
ended, whatever the page's own run state says in between."""

from __future__ import annotations

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.browser import RunWatch, watch_runs

STREAM = "ws://127.0.0.1:8501/_stcore/stream"


class Emitter:
    """What RunWatch uses of a Playwright page or websocket: ``on(event, handler)``, and the events fired."""

    def __init__(self, url: str = "") -> None:
        self.url, self.handlers = url, {}

    def on(self, event: str, handler) -> None:
        self.handlers.setdefault(event, []).append(handler)

    def fire(self, event: str, payload=None) -> None:
        for handler in self.handlers.get(event, []):
            handler(payload)


def rerun() -> bytes:
    msg = BackMsg()
    msg.rerun_script.query_string = "x=1"
    return msg.SerializeToString()


def heartbeat() -> bytes:
    msg = BackMsg()
    msg.app_heartbeat = True
    return msg.SerializeToString()


def started() -> bytes:
    msg = ForwardMsg()
    msg.new_session.page_script_hash = "a page"
    return msg.SerializeToString()


def finished(status=ForwardMsg.FINISHED_SUCCESSFULLY) -> bytes:
    msg = ForwardMsg()
    msg.script_finished = status
    return msg.SerializeToString()


def delta() -> bytes:
    msg = ForwardMsg()
    msg.delta.new_element.markdown.body = "a line"
    return msg.SerializeToString()


@pytest.fixture
def opened():
    """A watched page that has opened the app's websocket and run its first run to the end."""
    page = Emitter()
    watch = RunWatch(page)
    assert not watch.idle()  # before the page's websocket: its first run is still to come
    ws = Emitter(STREAM)
    page.fire("websocket", ws)
    assert not watch.idle()  # connected: the frontend asks for the first run as it connects
    ws.fire("framereceived", started())
    ws.fire("framereceived", delta())
    assert not watch.idle()
    ws.fire("framereceived", finished())
    assert watch.idle() and watch.runs == 1
    return page, watch, ws


def test_a_rerun_asked_for_is_waited_for_until_the_run_after_it_has_ended(opened):
    _, watch, ws = opened
    ws.fire("framesent", rerun())
    assert not watch.idle()  # the server has not started it: the page itself shows no run, the old wait's race
    ws.fire("framereceived", started())
    assert not watch.idle()
    ws.fire("framereceived", finished())
    assert watch.idle() and watch.runs == 2 and watch.asks == 1


def test_a_rerun_asked_for_as_a_run_ends_waits_for_its_own_run(opened):
    _, watch, ws = opened
    ws.fire("framesent", rerun())
    ws.fire("framereceived", started())
    ws.fire("framesent", rerun())  # asked again while that run goes on
    ws.fire("framereceived", finished())
    assert not watch.idle()  # the run that ended started before the second ask
    ws.fire("framereceived", started())
    ws.fire("framereceived", finished())
    assert watch.idle()


def test_a_run_stopped_for_another_is_not_an_end(opened):
    _, watch, ws = opened
    ws.fire("framesent", rerun())
    ws.fire("framereceived", started())
    ws.fire("framereceived", finished(ForwardMsg.FINISHED_EARLY_FOR_RERUN))  # st.rerun, or a newer ask
    assert not watch.idle()
    ws.fire("framereceived", started())
    ws.fire("framereceived", finished(ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY))
    assert watch.idle() and watch.runs == 3


def test_other_messages_sockets_and_a_closed_socket(opened):
    page, watch, ws = opened
    ws.fire("framesent", heartbeat())  # not a rerun
    ws.fire("framesent", "a text frame")
    assert watch.idle()
    other = Emitter("ws://127.0.0.1:9999/elsewhere")
    page.fire("websocket", other)
    other.fire("framesent", rerun())  # not the app's stream
    assert watch.idle()
    ws.fire("close")
    assert not watch.idle()  # the page's app is gone: nothing to read until it opens again
    again = Emitter(STREAM)
    page.fire("websocket", again)
    ws.fire("framereceived", finished())  # the old socket's last words are not the new one's
    assert not watch.idle()
    again.fire("framereceived", started())
    again.fire("framereceived", finished())
    assert watch.idle()


def test_a_page_watched_late_is_not_waited_on_until_its_next_socket():
    page = Emitter()
    page._selfattn_runs = None
    watch = watch_runs(page, late=True)
    assert watch.idle() and watch_runs(page) is watch  # its socket opened before: the page's run state decides
    ws = Emitter(STREAM)
    page.fire("websocket", ws)
    assert not watch.idle()
    ws.fire("framereceived", started())
    ws.fire("framereceived", finished())
    assert watch.idle()
