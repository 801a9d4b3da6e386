"""The app's pages, in one list: the frame's navigation and the home page's cards both read it.

A page is named once here; its title is ``nav.<name>`` in the catalog, the home page's card text
``home.<name>``. What it keeps is declared with the page, in the module :attr:`Page.declared_in` names (plain
Python, no Streamlit): its settings table, ``FIELDS`` or ``settings(hosted)``, and its other session keys, ``KEPT``
and ``WIDGETS`` ({key or family "prefix*": what it holds}). ``ui/state.py`` reads them; it knows no page.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Page:
    """One page of the app."""

    name: str  # "playground": catalog keys nav.<name> and home.<name>, settings table <name>
    script: str  # the page's file, relative to the app's folder
    icon: str  # a Material icon, ":material/<name>:"
    url_path: str  # the page's path in the address bar ("" for the home page)
    heavy: bool = False  # its runs can take a second of CPU: a few at a time per process (ui/server_limits.py)
    declared_in: str = ""  # the module declaring its settings and session keys ("": none, the home page)


HOME = Page("home", "pages/home.py", ":material/home:", "")
PAGES = (
    HOME,
    Page("playground", "pages/playground.py", ":material/grid_on:", "playground",
         declared_in="selfattn.playground.view"),
    Page("embeddings", "pages/embeddings.py", ":material/translate:", "embeddings", heavy=True,
         declared_in="selfattn.text.view"),
    Page("heads", "pages/heads.py", ":material/speed:", "heads", heavy=True, declared_in="selfattn.bench.view"),
    # the block page: its largest toy (32 tokens, 6 layers, a batch) and the real layer take a second of CPU;
    # an edit reruns only its fragment, which waits its turn as heavy too (ui/server_limits.py)
    Page("block", "pages/block.py", ":material/view_agenda:", "block", heavy=True, declared_in="selfattn.block.view"),
    # the encoder–decoder: its largest model (8 + 8 tokens, 4 + 4 layers, d_model 16) and its torch check
    Page("seq2seq", "pages/seq2seq.py", ":material/translate:", "seq2seq", heavy=True,
         declared_in="selfattn.seq2seq.view"),
    # efficient attention: its torch and transformers checks, and the traffic counted over up to 400,000 tiles
    Page("efficient", "pages/efficient.py", ":material/bolt:", "efficient", heavy=True,
         declared_in="selfattn.efficient.view"),
    # the tiny poet: a poem of up to 40 cached steps on a 300,000-parameter model, and its torch check
    Page("poet", "pages/poet.py", ":material/edit_note:", "poet", heavy=True, declared_in="selfattn.poet.view"),
)
PAGE_NAMED = {page.name: page for page in PAGES}
