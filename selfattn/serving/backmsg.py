"""What the rules read of a browser's websocket message, and the two edits made to a rerun.

A message is Streamlit's ``BackMsg`` protobuf, read and edited by its public fields only (the fields are
listed in docs/streamlit-upgrade.md); nothing here imports Streamlit. ``ui/server_limits.py`` uses these.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping

from selfattn.serving.limits import Message


def read(msg) -> Message:
    """The plain values :func:`selfattn.serving.limits.check_message` rules on."""
    kind = msg.WhichOneof("type")
    return Message(kind, len(msg.rerun_script.widget_states.widgets) if kind == "rerun_script" else 0,
                   len(msg.file_urls_request.file_names) if kind == "file_urls_request" else 0,
                   msg.backend_operation_request.WhichOneof("payload") if kind == "backend_operation_request" else None)


# Kinds a widget takes either of: a number box says "double_value" and the browser sends a whole number's as int_value.
KINDS = {"int_value": "number", "double_value": "number"}


def keep_widgets(msg, known: Container[str] | Mapping[str, object]) -> int:
    """Drop from the rerun ``msg`` the states of widgets not ``known`` (the session never drew them) and, where
    ``known`` maps each id to what the widget takes (an object with ``value_type``, Streamlit's widget metadata), the
    states of another kind (a text for a switch or an expander: Streamlit hands a value on as it came, and the page's
    run would fail on it); how many."""
    def fits(state) -> bool:
        if state.id not in known:
            return False
        takes = getattr(known[state.id], "value_type", None) if isinstance(known, Mapping) else None
        return takes is None or KINDS.get(state.WhichOneof("value"), state.WhichOneof("value")) == KINDS.get(takes, takes)

    widgets = msg.rerun_script.widget_states.widgets
    kept, dropped = [w for w in widgets if fits(w)], len(widgets)
    if len(kept) != dropped:  # most reruns: every widget drawn, nothing copied
        del widgets[:]
        widgets.extend(kept)
    return dropped - len(kept)


def newest_rerun(older, newer, coalesce: Callable):
    """The one rerun standing for two reruns of a session, older then newer: the newer (every widget as the browser
    holds it) keeping the one-shot values (a click, a component's event) only the older carried, as Streamlit
    coalesces two requests (``coalesce(old widget states, new)``: Streamlit's own merge); a whole run where the two
    asked for different fragments."""
    merged, old, new = type(newer)(), older.rerun_script, newer.rerun_script
    merged.CopyFrom(newer)
    states = coalesce(old.widget_states, new.widget_states)
    del merged.rerun_script.widget_states.widgets[:]
    merged.rerun_script.widget_states.widgets.extend(states.widgets if states is not None else [])
    merged.rerun_script.fragment_id = new.fragment_id if old.fragment_id == new.fragment_id else ""
    merged.rerun_script.is_auto_rerun = old.is_auto_rerun and new.is_auto_rerun
    return merged
