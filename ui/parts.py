"""A long page in parts a visitor picks: only the open part's body runs (issue 52).

A page names its parts once (ids, in the order a learner follows them, the first the one a newcomer should see
first) and keeps the open one as a setting of its table (``Field(<page>_part, "part", Choice(ids), ids[0])``), so
the link carries it like any other setting and a link without it opens the first part. :func:`show` draws
``st.tabs`` with ``on_change`` (Streamlit then runs, and sends, only the open tab's body: the others are empty
containers), runs the open part's body inside its tab, and ends it with a "next part" button.

The tab bar is the map of the whole (each label numbered, the open one marked by Streamlit). Its widget state is
the open tab's label, which changes with the language; the setting holds the part's id, and the widget is given
the label of that id before every run (:func:`show`), so a language switch, a link or the "next part" button all
open the same part.
"""

from __future__ import annotations

from typing import Callable, Mapping

import streamlit as st

from selfattn.i18n import Markdown, escape_markdown
from ui import state as settings
from ui.widgets import tr, tr_plain


def labels(prefix: str, ids: tuple[str, ...]) -> list[str]:
    """The parts' tab labels in the current language: ``<prefix>.part_<id>``, numbered "1 · …"."""
    return [f"{i} · {tr_plain(f'{prefix}.part_{part}')}" for i, part in enumerate(ids, start=1)]


def tabs_key(key: str) -> str:
    """The tab bar's widget key for the part setting ``key`` (declared in the page's WIDGETS)."""
    return f"{key}_tabs"


def next_key(key: str) -> str:
    """The "next part" button's widget key for the part setting ``key`` (declared in the page's WIDGETS)."""
    return f"{key}_next"


def current(key: str, ids: tuple[str, ...]) -> str:
    """The open part (the setting ``key``, a part no longer offered becoming the first)."""
    return settings.keep(key, ids, fallback=ids[0])


def _picked(key: str, ids: tuple[str, ...], shown: list[str]) -> None:
    """The tab bar's callback: the setting follows the tab the visitor opened."""
    label = st.session_state.get(tabs_key(key))
    if label in shown:
        settings.put(key, ids[shown.index(label)])


def show(page: str, key: str, prefix: str, bodies: Mapping[str, Callable[[], None]]) -> str:
    """Draw the parts as tabs and run only the open one's body, ended with a "next part" button.

    The closed parts' settings are kept too (:func:`keep_closed`), so the link names the whole page's state.

    Args:
        page: the page's name (its settings table, ``ui.state.fields``).
        key: the part setting (a key of the page's table whose codec is ``Choice(ids)``).
        prefix: the catalog prefix of the labels (``<prefix>.part_<id>``).
        bodies: {part id: its body}, in the parts' order.

    Returns:
        The open part's id.
    """
    ids = tuple(bodies)
    part = current(key, ids)
    shown = labels(prefix, ids)
    st.session_state[tabs_key(key)] = shown[ids.index(part)]  # before the widget: the setting decides
    tabs = st.tabs(shown, key=tabs_key(key), on_change=_picked, args=(key, ids, shown),
                   default=shown[ids.index(part)])
    for tab, part_id in zip(tabs, ids):
        if part_id != part:
            continue  # a closed part runs nothing and sends nothing
        with tab:
            st.caption(map_line(prefix, ids, part_id))
            bodies[part_id]()
            next_button(key, prefix, ids, part_id)
    keep_closed(page)
    return part


def keep_closed(page: str) -> None:
    """Keep the settings whose widgets did not run (a closed part's): Streamlit drops an undrawn widget's state, and
    the link (``ui.links.publish``, after this) is written from session state, so without this a teacher's link
    made on one part would lose the others' settings."""
    state = st.session_state
    for f in settings.fields(page):
        if f.key not in state:
            settings.keep(f.key)
        elif state.get(settings.shadow(f.key), f.default) != state[f.key]:
            # a widget drawn with its first value and no keep(): its state goes at the run's end if its part closes
            state[settings.shadow(f.key)] = state[f.key]


def map_line(prefix: str, ids: tuple[str, ...], part: str) -> Markdown:
    """Where ``part`` sits in the whole: every part's label in order, the open one in bold."""
    names = [escape_markdown(label) for label in labels(prefix, ids)]
    return tr("parts.map", parts=Markdown(" → ".join(f"**{n}**" if i == part else n for i, n in zip(ids, names))))


def next_button(key: str, prefix: str, ids: tuple[str, ...], part: str) -> None:
    """At a part's end: where it sits in the whole, and a button to the next part (none after the last)."""
    at = ids.index(part)
    st.divider()
    if at + 1 < len(ids):
        following = labels(prefix, ids)[at + 1]
        st.caption(tr("parts.where", i=at + 1, n=len(ids)))
        st.button(tr_plain("parts.next", name=following), key=next_key(key), icon=":material/arrow_forward:",
                  on_click=settings.put, args=(key, ids[at + 1]))
    else:
        st.caption(tr("parts.last", n=len(ids)))
        st.button(tr_plain("parts.first", name=labels(prefix, ids)[0]), key=next_key(key),
                  icon=":material/first_page:", on_click=settings.put, args=(key, ids[0]))
