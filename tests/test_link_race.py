"""The link follows a change made before the first run of a session is over (issue 38, item 6).

A visitor who clicks while a page is still opening interrupts its first run: Streamlit starts a new run
at once. The link used to be written only by runs after one that had reached its end, so the run of the
click, the first to finish, left the address bar as it was opened: the view showed head 3, the link did
not (tests/test_readout_browser.py failed in whole-suite runs, where the first open is slow).

Here the click is sent over Streamlit's websocket protocol at the moment that makes it likely beyond doubt:
as soon as the pattern grid reaches the visitor, while the page under it (maps, head view, Q, K, V, the
layer's grid) still has most of its work to do. The test checks that the first run was indeed cut short.
"""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from support import server as servers, visitor as wire

pytestmark = pytest.mark.system  # a Streamlit server process, spoken to over its websocket

SENTENCE = "text=The+animal+didn%27t+cross+the+street+because+it+was+too+tired&part=model"  # the heads' part


@pytest.fixture(scope="module")
def url():
    with servers.streamlit_server(timeout=120) as base:
        yield base


class Early(wire.Visitor):
    """A tab that clicks a head on the pattern grid the moment the grid is drawn, in the page's first run."""

    async def open_and_click(self, page: str, query: str) -> list[int]:
        """Open ``page`` at ``query``; pick layer 1, head 3 as soon as the grid arrives; return the status
        of each run that ended, once one finished after the click."""
        path = wire.PAGES[page]
        self.query_string, self.url = query, f"{self.base}/{path}?{query}"
        await wire.http_get(self.url, self.timeout)
        host = self.base.split("//", 1)[1]
        self.ws = await wire.connect(f"ws://{host}/_stcore/stream", subprotocols=[wire.Subprotocol("streamlit")],
                                     origin=wire.Origin(f"http://{host}"), proxy=None, max_size=None,
                                     open_timeout=self.timeout)
        await self.ws.send(wire.rerun_request(url=self.url, page_name=path, query_string=query))
        sent, ended = False, []
        while True:
            msg = ForwardMsg()
            msg.ParseFromString(await asyncio.wait_for(self.ws.recv(), self.timeout))
            status = self.handle(msg)
            if status is not None:
                ended.append(status)
                if sent and status == wire.FINISHED:
                    return ended
            grid = [wid for wid in self.drawn if re.search(r"-emb_patterns$", wid)]
            if grid and not sent:  # what the browser sends for a click on layer 1, head 3
                sent = True
                self.widgets[grid[0]] = WidgetState(id=grid[0], string_value=json.dumps(
                    {"selection": {"pick": [{"layer": 1, "head": 3}]}}))
                await self.ws.send(wire.rerun_request(url=self.url, page_hash=self.page_hash,
                                                      query_string=self.query_string, widgets=self.widgets.values()))


def test_a_change_during_the_first_run_is_written_into_the_link(url):
    async def visit():
        tab = Early(url, wire.Tally(), timeout=120)
        try:
            ended = await tab.open_and_click("embeddings", SENTENCE)
            return ended, tab.query_string
        finally:
            await tab.close()

    ended, query = asyncio.run(visit())
    assert ended[0] == wire.EARLY_FOR_RERUN, ("the first run was not interrupted: the test proves nothing", ended)
    assert "head=3" in query, f"the link does not follow the change: {query!r}"
    assert "text=The+animal" in query, f"the link lost the sentence: {query!r}"
