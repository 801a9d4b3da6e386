"""Every private name of Streamlit the app touches (:data:`TARGETS`), each found at start-up or a loud
:class:`HookMissing` naming it (:func:`check`): an upgrade that moved one never quietly turns a guard off. The rest of
the app uses ``import streamlit as st`` only (tests/test_server_limits.py checks); the hooks hand plain values to
``ui/server_limits.py``, whose rules are ``selfattn/serving/``'s. What an upgrade checks: docs/streamlit-upgrade.md.
"""

from __future__ import annotations

from selfattn.display.guard import short_name
from selfattn.serving.one_key import KeyView
from selfattn.serving.targets import HookMissing, find, name_of, wrap  # HookMissing: what check and install raise
from selfattn.serving.turns import Run

SR = "streamlit.runtime"
CTX = f"{SR}.scriptrunner_utils.script_run_context"
UPLOADS = f"{SR}.memory_uploaded_file_manager:MemoryUploadedFileManager"
WIDGET_MODULES = ("number_input", "radio", "selectbox", "slider", "text_widgets", "time_widgets")  # read filtered_state
TARGETS = (  # "module:name(its parameters)" or "module:name{the fields read}"
    "streamlit.components.v2.bidi_component.main:deserialize_trigger_list(s)",  # a component's trigger list
    f"{SR}.scriptrunner.script_runner:exec_func_with_error_handling(func, ctx)",  # once a run: its end
    f"{CTX}:ScriptRunContext.on_script_start(self)",  # as a run's code starts, after the widgets' callbacks
    f"{CTX}:ScriptRunContext{{session_id, page_script_hash, pages_manager, fragment_ids_this_run, yield_check, "
    "session_state}",
    f"{SR}.state.safe_session_state:SafeSessionState{{_state, _lock}}",  # ui/state.py's keep
    f"{CTX}:get_script_run_ctx(suppress_warning)",
    f"{SR}.pages_manager:PagesManager{{main_script_hash, intended_page_name, uses_pages_directory}}",  # ui/state.py
    f"{SR}.app_session:AppSession.handle_backmsg(self, msg)",  # every websocket message of a session
    f"{SR}.app_session:AppSession{{id, _session_state}}",
    f"{SR}.state.session_state:SessionState{{_new_widget_state, _old_state}}",  # the widgets a session has drawn
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
    *(f"streamlit.elements.widgets.{module}:get_session_state()" for module in WIDGET_MODULES),  # widgets' reads
)
_found: dict[str, object] = {}  # check()'s answer, once taken


def check() -> dict[str, object]:
    """Every target found, by its ``module:name``, or :class:`HookMissing` naming the first that moved."""
    return {name_of(target): find(target) for target in TARGETS}


def _get(name: str):
    if not _found:  # a reader called before install (a page run alone by AppTest): checked all the same
        _found.update(check())
    return _found[name]


def install(*, read_triggers, around_run, run_started, on_message, on_download, on_upload, on_disconnect) -> None:
    """Check every target, then route Streamlit's calls through these (idempotent), each handed plain values and
    ``go``, Streamlit's own call (``read_triggers`` replaces Streamlit's; uploads and disconnects once a runtime is)."""
    _found.update(check())
    wrap("streamlit.components.v2.bidi_component.main:deserialize_trigger_list", lambda _: lambda s: read_triggers(s))
    wrap(f"{SR}.scriptrunner.script_runner:exec_func_with_error_handling",
          lambda old: lambda func, ctx: around_run(lambda: old(func, ctx)))
    wrap(f"{CTX}:ScriptRunContext.on_script_start", lambda old: _started(old, run_started))
    wrap(f"{SR}.app_session:AppSession.handle_backmsg",
          lambda old: lambda self, msg: on_message(self, msg, lambda m: old(self, m)))
    wrap(f"{SR}.backend_operation_handler:DeferredFileHandler.handle", lambda old: _download(old, on_download))
    for module in WIDGET_MODULES:
        wrap(f"streamlit.elements.widgets.{module}:get_session_state", lambda old: lambda: KeyView(old(), _one_value))
    if _get(f"{SR}:Runtime").exists():
        runtime = _get(f"{SR}:Runtime").instance()
        wrap(":add_file", lambda old: lambda session_id, file: on_upload(session_id, file.file_id, len(file.data),
              lambda: old(session_id, file._replace(name=short_name(file.name)))), runtime.uploaded_file_mgr)
        wrap(":disconnect_session", lambda old: lambda session_id, client=None: on_disconnect(
              session_id, lambda: old(session_id, client=client)), runtime)


def _started(original, run_started):
    def on_script_start(self) -> None:
        original(self)
        pages = self.pages_manager
        run_started(Run(self.session_id, self.page_script_hash, pages.main_script_hash,
                        pages.intended_page_name or "", bool(self.fragment_ids_this_run), self.yield_check))
    return on_script_start


def _one_value(safe, key: str):
    """One key of the session state as ``filtered_state`` holds it, under the session's lock (``serving.one_key``)."""
    with safe._lock:
        return safe._state[key]


def _download(original, on_download):
    async def handle(self, request, session_id: str):
        return await on_download(session_id, request, lambda: original(self, request, session_id))
    return handle


# ── Readers of Streamlit's objects, for ui/ ──────────────────────────────────────────────

def _function(target: str):
    """The function ``target`` names (``module:name``), called as checked (a reader before install checks first)."""
    return lambda *args, **kwargs: _get(target)(*args, **kwargs)


page_hash = _function("streamlit.util:calc_hash")  # a page's hash, as a run names its page: its url path's
# two reruns' widget states merged as Streamlit merges two requests (None where both are empty)
coalesce_widget_states = _function(f"{SR}.scriptrunner_utils.script_requests:_coalesce_widget_states")
_context = _function(f"{CTX}:get_script_run_ctx")  # the run this thread is in, or None


def current_session() -> str:
    """The session this thread runs for; "" outside a run (ui/heads and ui/efficient count a cooldown by it)."""
    ctx = _context(suppress_warning=True)
    return ctx.session_id if ctx is not None else ""


def drop_value_under_key(key: str) -> None:
    """Drop the value kept under a widget's key from a run that did not draw it (ui/state.py's keep); the widget's
    own state and its key's mapping stay."""
    ctx = _context(suppress_warning=True)
    if ctx is not None:
        with ctx.session_state._lock:
            ctx.session_state._state._old_state.pop(key, None)


def leave_pages_directory_mode() -> bool:
    """Whether Streamlit was in its old ``pages/`` mode, then left (ui/state.py)."""
    pages = _get(f"{SR}.pages_manager:PagesManager")
    if not pages.uses_pages_directory:  # None: not decided yet, left so
        return False
    pages.uses_pages_directory = False
    return True


def uploads():
    """The uploaded-file manager; None where there is none to bound (no runtime, AppTest's mock)."""
    runtime = _get(f"{SR}:Runtime")
    manager = runtime.instance().uploaded_file_mgr if runtime.exists() else None
    return manager if isinstance(getattr(manager, "file_storage", None), dict) else None


def held_files(manager, session_id: str) -> list[tuple[str, int]]:
    """A session's files in ``manager``, (id, bytes), oldest first."""
    return [(fid, len(rec.data)) for fid, rec in manager.file_storage.get(session_id, {}).items()]


def file_ids(values) -> set[str]:
    """The ids of the uploads among a session's values."""
    return {v.file_id for v in values if isinstance(v, _get(f"{SR}.uploaded_file_manager:UploadedFile"))}


def session_of(session) -> tuple[str, object]:
    """An AppSession's id and the ids of the widgets it has drawn."""
    return session.id, session._session_state._new_widget_state.widget_metadata

