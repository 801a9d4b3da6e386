"""Every private name of Streamlit the app touches, in one place: found at start-up, or a loud error.

Streamlit has no public hook for what ``ui/server_limits.py`` bounds (a message, a trigger list, an upload, a
run's start and end), so this module wraps its internals; the rest of the app uses ``import streamlit as st``
only (tests/test_server_limits.py checks). :data:`TARGETS` lists each with the parameters or fields it must
have; :func:`install` first finds them all (:func:`check`) and raises :class:`HookMissing` naming one that
moved, before it changes anything: an upgrade that moved a target stops the app at start-up, never quietly
turns a guard off. The hooks hand over plain values; the rules are ``selfattn/serving/``'s.
docs/streamlit-upgrade.md is the checklist; tests/test_server_limits.py pins how Streamlit uses each target.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
from collections.abc import Callable

from selfattn.display.guard import short_name
from selfattn.serving.limits import Message
from selfattn.serving.turns import Run

SR = "streamlit.runtime"
CTX = f"{SR}.scriptrunner_utils.script_run_context"
UPLOADS = f"{SR}.memory_uploaded_file_manager:MemoryUploadedFileManager"
TARGETS = (  # "module:name(its parameters)" or "module:name{the fields read}"
    "streamlit.components.v2.bidi_component.main:deserialize_trigger_list(s)",  # a component's trigger list
    f"{SR}.scriptrunner.script_runner:exec_func_with_error_handling(func, ctx)",  # once a run: its end
    f"{CTX}:ScriptRunContext.on_script_start(self)",  # as a run's code starts, after the widgets' callbacks
    f"{CTX}:ScriptRunContext{{session_id, page_script_hash, pages_manager, fragment_ids_this_run, yield_check}}",
    f"{CTX}:get_script_run_ctx(suppress_warning)",
    f"{SR}.pages_manager:PagesManager{{main_script_hash, intended_page_name, uses_pages_directory}}",  # ui/state.py
    f"{SR}.app_session:AppSession.handle_backmsg(self, msg)",  # every websocket message of a session
    f"{SR}.app_session:AppSession{{id, _session_state}}",
    f"{SR}.state.session_state:SessionState{{_new_widget_state}}",  # the widgets a session has drawn
    f"{SR}.state.session_state:WStates{{widget_metadata}}",
    f"{SR}.scriptrunner_utils.script_requests:_coalesce_widget_states(old_states, new_states)",
    f"{SR}.backend_operation_handler:DeferredFileHandler.handle(self, request, session_id)",  # a download
    f"{SR}:Runtime.disconnect_session(self, session_id, client)",  # a websocket closed
    f"{SR}:Runtime{{exists, instance, uploaded_file_mgr}}",
    f"{UPLOADS}.add_file(self, session_id, file)",  # a file PUT to a session
    f"{UPLOADS}.remove_file(self, session_id, file_id)",
    f"{UPLOADS}.remove_session_files(self, session_id)",
    f"{UPLOADS}{{file_storage}}",
    f"{SR}.uploaded_file_manager:UploadedFileRec{{file_id, name, data}}",
    f"{SR}.uploaded_file_manager:UploadedFile{{file_id}}",
    "streamlit.util:calc_hash(s)",  # a page's hash: its url path's
    "streamlit.dataframe_util:convert_arrow_table_to_arrow_bytes(table)",  # a Vega chart's data (ui/widgets.py)
)
_found: dict[str, object] = {}  # check()'s answer, once taken


class HookMissing(RuntimeError):
    """A Streamlit internal the app hooks into is missing or has changed (named in the message)."""


def find(target: str):
    """The object ``target`` names (one of :data:`TARGETS`), checked; :class:`HookMissing` if it moved."""
    module, name, params, fields = re.fullmatch(r"([\w.]+):([\w.]+)(?:\((.*)\)|\{(.*)\})", target).groups()
    wanted = [p.strip() for p in (params if params is not None else fields).split(",")]
    try:
        found = functools.reduce(getattr, name.split("."), importlib.import_module(module))
    except (ImportError, AttributeError) as missing:
        raise HookMissing(f"Streamlit has no {module}:{name} ({missing}); see docs/streamlit-upgrade.md") from None
    have = list(inspect.signature(found).parameters) if params is not None else [f for f in wanted if _has(found, f)]
    if have != wanted:
        raise HookMissing(f"Streamlit's {module}:{name} has {have}, the hook needs {wanted}; "
                          "see docs/streamlit-upgrade.md")
    return found


def _has(cls, field: str) -> bool:
    """Whether ``cls`` has ``field``: a dataclass or named tuple field, a class attribute, or set by ``__init__``."""
    if field in getattr(cls, "__dataclass_fields__", ()) or field in getattr(cls, "_fields", ()) or hasattr(cls, field):
        return True
    try:
        return re.search(rf"self\.{field}\s*[:=]", inspect.getsource(cls.__init__)) is not None
    except (OSError, TypeError):  # no source: a generated __init__
        return False


def check() -> dict[str, object]:
    """Every target found, by its ``module:name``, or :class:`HookMissing` naming the first that moved."""
    return {re.split(r"[({]", target)[0]: find(target) for target in TARGETS}


def _get(name: str):
    if not _found:  # a reader called before install (a page run alone by AppTest): checked all the same
        _found.update(check())
    return _found[name]


def _wrap(target: str, make: Callable, owner=None) -> None:
    """``target`` (``module:name``, or an attribute of ``owner``) replaced by ``make(original)``, once."""
    module, _, name = target.partition(":")
    *path, attr = name.split(".")
    owner = functools.reduce(getattr, path, importlib.import_module(module)) if owner is None else owner
    original = getattr(owner, attr)
    if not getattr(original, "selfattn_hook", False):
        setattr(owner, attr, functools.wraps(original)(make(original)))
        getattr(owner, attr).selfattn_hook = True


def install(*, read_triggers, run_scope, run_started, on_message, on_download, on_upload, on_disconnect) -> None:
    """Check every target, then route Streamlit's calls through these (idempotent): ``read_triggers(text)``;
    ``with run_scope()`` around each run, ``run_started(Run)`` as its code starts; ``on_message(session, msg,
    deliver)``; ``await on_download(session id, file id, build)`` (``await build()``: the response, and whether it
    was built without error); once the runtime exists, ``on_upload(session id, file id, size, store)``,
    ``on_disconnect(session id)``."""
    _found.update(check())
    _wrap("streamlit.components.v2.bidi_component.main:deserialize_trigger_list", lambda _: lambda s: read_triggers(s))
    _wrap(f"{SR}.scriptrunner.script_runner:exec_func_with_error_handling", lambda old: _scoped(old, run_scope))
    _wrap(f"{CTX}:ScriptRunContext.on_script_start", lambda old: _started(old, run_started))
    _wrap(f"{SR}.app_session:AppSession.handle_backmsg",
          lambda old: lambda self, msg: on_message(self, msg, lambda m: old(self, m)))
    _wrap(f"{SR}.backend_operation_handler:DeferredFileHandler.handle", lambda old: _download(old, on_download))
    if _get(f"{SR}:Runtime").exists():
        runtime = _get(f"{SR}:Runtime").instance()
        _wrap(":add_file", lambda old: lambda session_id, file: on_upload(session_id, file.file_id, len(file.data),
              lambda: old(session_id, file._replace(name=short_name(file.name)))), runtime.uploaded_file_mgr)
        _wrap(":disconnect_session", lambda old: _then(old, on_disconnect), runtime)


def _scoped(original, run_scope):
    def exec_func_with_error_handling(func, ctx):
        with run_scope():
            return original(func, ctx)
    return exec_func_with_error_handling


def _started(original, run_started):
    def on_script_start(self) -> None:
        original(self)
        pages = self.pages_manager
        run_started(Run(self.session_id, self.page_script_hash, pages.main_script_hash,
                        pages.intended_page_name or "", bool(self.fragment_ids_this_run), self.yield_check))
    return on_script_start


def _download(original, on_download):
    async def handle(self, request, session_id: str):
        async def build():
            built = await original(self, request, session_id)
            return built, not built.error_msg
        built = await on_download(session_id, request.deferred_file.file_id, build)
        answer = type(built)()
        answer.CopyFrom(built)  # each request its own answer, with its own id
        answer.request_id = request.request_id
        return answer
    return handle


def _then(original, after):
    def disconnect_session(session_id: str, *args, **kwargs):
        try:
            return original(session_id, *args, **kwargs)
        finally:
            after(session_id)
    return disconnect_session


# ── Reading Streamlit's objects: a page's hash (its url path's); the session this thread runs for ("" outside a run,
# ui/heads and ui/efficient count a benchmark's cooldown by it); whether Streamlit was in its old pages/ mode, then
# left (ui/state.py); a pyarrow table as the bytes a chart's data travels in (ui/widgets.py);
# the uploaded-file manager (None where there is none to bound: no runtime, AppTest's mock) and a session's files in
# it, (id, bytes) oldest first; the ids of the uploads among a session's values; an AppSession's id and the ids of
# the widgets it has drawn; what the rules read of a BackMsg; a rerun without the widgets not ``known`` (how many).

def page_hash(url_path: str) -> str:
    return _get("streamlit.util:calc_hash")(url_path)


def current_session() -> str:
    ctx = _get(f"{CTX}:get_script_run_ctx")()
    return ctx.session_id if ctx is not None else ""


def leave_pages_directory_mode() -> bool:
    pages = _get(f"{SR}.pages_manager:PagesManager")
    if not pages.uses_pages_directory:  # None: not decided yet, left so
        return False
    pages.uses_pages_directory = False
    return True


def arrow_bytes(table) -> bytes:
    return _get("streamlit.dataframe_util:convert_arrow_table_to_arrow_bytes")(table)


def uploads():
    runtime = _get(f"{SR}:Runtime")
    manager = runtime.instance().uploaded_file_mgr if runtime.exists() else None
    return manager if isinstance(getattr(manager, "file_storage", None), dict) else None


def held_files(manager, session_id: str) -> list[tuple[str, int]]:
    return [(fid, len(rec.data)) for fid, rec in manager.file_storage.get(session_id, {}).items()]


def file_ids(values) -> set[str]:
    return {v.file_id for v in values if isinstance(v, _get(f"{SR}.uploaded_file_manager:UploadedFile"))}


def session_of(session) -> tuple[str, object]:
    return session.id, session._session_state._new_widget_state.widget_metadata


def message(msg) -> Message:
    kind = msg.WhichOneof("type")
    return Message(kind, len(msg.rerun_script.widget_states.widgets) if kind == "rerun_script" else 0,
                   len(msg.file_urls_request.file_names) if kind == "file_urls_request" else 0,
                   msg.backend_operation_request.WhichOneof("payload") if kind == "backend_operation_request" else None)


def keep_widgets(msg, known) -> int:
    widgets = msg.rerun_script.widget_states.widgets
    kept, dropped = [w for w in widgets if w.id in known], len(widgets)
    if len(kept) != dropped:  # most reruns: every widget drawn, nothing copied
        del widgets[:]
        widgets.extend(kept)
    return dropped - len(kept)


def newest_rerun(older, newer):
    """The one rerun standing for two ``BackMsg`` reruns of a session, older then newer: the newer (every widget as
    the browser holds it) keeping the one-shot values (a click, a component's event) only the older carried, as
    Streamlit coalesces two requests; a whole run where the two asked for different fragments."""
    merged, old, new = type(newer)(), older.rerun_script, newer.rerun_script
    merged.CopyFrom(newer)
    states = _get(f"{SR}.scriptrunner_utils.script_requests:_coalesce_widget_states")(old.widget_states,
                                                                                      new.widget_states)
    del merged.rerun_script.widget_states.widgets[:]
    merged.rerun_script.widget_states.widgets.extend(states.widgets if states is not None else [])
    merged.rerun_script.fragment_id = new.fragment_id if old.fragment_id == new.fragment_id else ""
    merged.rerun_script.is_auto_rerun = old.is_auto_rerun and new.is_auto_rerun
    return merged
