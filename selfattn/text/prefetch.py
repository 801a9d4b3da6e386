"""Downloading a hub model into the Hugging Face cache, with its size first and progress after.

This is the only part of ``selfattn`` that uses the network, and only when a caller asks: the page
when a visitor (or the host) allows it, ``load_or_download(spec)``, or a host
at build time::

    python -m selfattn.text.prefetch bert-base-chinese        # what `deploy/install.sh prefetch` runs

``plan_download(spec)`` lists what would be fetched and its size (one request, nothing written);
``download_model(spec, progress)`` fetches it, calling ``progress(bytes_done, bytes_total)`` from
the caller's thread. Afterwards the model loads offline with ``models.load_model(spec)``.

Why it is safe:

* **What**: only ``models.DOWNLOAD_PATTERNS`` (config.json, tokenizer files, ``*.safetensors``);
  pickle weights (``.bin``) are never fetched, a repo without safetensors weights is refused
  before anything is written, and nothing here or in ``models`` passes ``trust_remote_code``.
* **Which**: the name goes through ``models.resolve_model``'s checks before any request, so in
  hosted mode (``SELFATTN_HOSTED=1``) only ``models.HOSTED_ALLOWLIST`` ids are downloaded.
* **Where from**: ``HF_ENDPOINT`` (a mirror, e.g. https://hf-mirror.com), read at each call;
  huggingface.co otherwise.
* **Where to**: the normal Hugging Face cache (``HF_HOME`` / ``HF_HUB_CACHE``) through
  ``huggingface_hub.snapshot_download``, which writes each file to a unique ``*.incomplete``
  file, renames it into place only once its size checks out, and caches the repo's file listing.
  A download cut off half-way leaves no partial file, and ``models.resolve_model`` refuses a
  snapshot that misses some listed file (``download_incomplete``), so a half-downloaded model is
  never loaded; downloading again completes it.
* **Offline mode**: loading sets ``HF_HUB_OFFLINE=1`` (``models.stay_offline``). A download lifts
  huggingface_hub's offline switch only while it runs, and not at all when the host set
  ``HF_HUB_OFFLINE`` or ``TRANSFORMERS_OFFLINE`` themselves (``downloads_off``): set it to
  forbid downloads on a server whose models were prefetched at build time.
* **Who asks**: a page never downloads, nor asks the hub anything, by itself; a visitor's click does
  (``check_visitor_download`` says whether a visitor may). In hosted mode visitors may not, unless the
  host sets ``SELFATTN_ALLOW_DOWNLOADS=1``: the demo offers the models installed at build time. The
  host's own command (``python -m selfattn.text.prefetch``) is not a visitor and always may.
* **What a visitor reads**: errors name the model and say what happened in plain words ("this server
  cannot reach the model hub"), never the endpoint or a socket's errno; the English message of the
  InputError keeps both, for the host's command line and logs.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import queue
import socket
import sys
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterator

from selfattn.errors import InputError
from selfattn.hosting import YES, is_hosted
from selfattn.text import models

Progress = Callable[[int, int], None]  # progress(bytes_done, bytes_total)
TOKENIZER_FILES = ("tokenizer.json", "vocab.txt")  # one of them is needed to tokenize
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".h5", ".msgpack")  # weights we never fetch
_BYTES_BAR = "huggingface_hub.snapshot_download"  # snapshot_download's bar of bytes written to disk
ALLOW_DOWNLOADS_ENV = "SELFATTN_ALLOW_DOWNLOADS"  # 1/true/yes/on: visitors of a hosted demo may download models
# What a download of a model the page offers by name will fetch, to say before anything is asked of the hub
# (a page open makes no request): bert-base-chinese's float32 weights, 102,882,442 parameters of
# BertForPreTraining with its 21,128-token vocabulary (tests/test_models.py counts them), plus its
# config and tokenizer (under 1 MB).
EXPECTED_BYTES = {"google-bert/bert-base-chinese": 412_000_000}
ESTIMATE_SPEEDS = (10_000_000, 1_000_000)  # bytes per second: a good connection and a slow one


@dataclass(frozen=True)
class DownloadPlan:
    """What a download of one hub model fetches, before it starts."""

    name: str  # the hub id as asked, e.g. "bert-base-chinese"
    endpoint: str  # where the files come from, e.g. "https://huggingface.co"
    commit: str  # the revision the listing is for; "" when the model is already cached
    files: tuple[tuple[str, int], ...]  # (path in the repo, bytes) of each file fetched
    cached: bool  # a complete copy is already in the cache: nothing to download

    @property
    def total_bytes(self) -> int:
        """Bytes the download fetches (what is on disk when ``cached``)."""
        return sum(size for _, size in self.files)


def hub_endpoint() -> str:
    """The hub or mirror to download from: ``HF_ENDPOINT`` now, else huggingface_hub's default."""
    from huggingface_hub import constants

    return os.environ.get("HF_ENDPOINT", "").strip().rstrip("/") or constants.ENDPOINT


def visitors_may_download() -> bool:
    """True when a visitor's click may download a model here (see :func:`check_visitor_download`)."""
    try:
        check_visitor_download("")
    except InputError:
        return False
    return True


def check_visitor_download(spec: str) -> None:
    """Raise InputError unless a visitor may download ``spec`` here (the host may always: see the CLI).

    Raises:
        InputError: ``only_installed`` in hosted mode without ``SELFATTN_ALLOW_DOWNLOADS=1``;
            ``downloads_off`` when the host set HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE.
    """
    if is_hosted() and os.environ.get(ALLOW_DOWNLOADS_ENV, "").strip().lower() not in YES:
        raise InputError("only_installed", f"This demo offers only the models already installed on this server; "
                                           f"{spec} is not installed, and downloads are off ({ALLOW_DOWNLOADS_ENV} "
                                           "is not set).", name=spec)
    _check_downloads_on(spec)


def cached_folder(spec: str) -> Path | None:
    """The complete local copy of ``spec`` (cache, bundled model or folder), or None when it must be downloaded.

    Raises:
        InputError: every ``models.resolve_model`` error except the ones a download cures
            (``offline``, ``offline_hosted``, ``download_incomplete``): a bad name, an id the
            hosted app does not offer, a local path that is not a model folder.
    """
    try:
        return models.resolve_model(spec)[1]
    except InputError as err:
        if err.code in models.DOWNLOADABLE:
            return None
        raise


def plan_download(spec: str) -> DownloadPlan:
    """List the files a download of ``spec`` fetches and their size; write nothing.

    One request to the hub (or ``HF_ENDPOINT``), none when the model is already cached.

    Args:
        spec: a hub id such as "bert-base-chinese".

    Returns:
        DownloadPlan; ``total_bytes`` is the size to show before downloading.

    Raises:
        InputError: the checks of ``cached_folder``; ``downloads_off`` when the host set
            HF_HUB_OFFLINE; ``hub_not_found``; ``hub_no_safetensors`` (pickle weights only);
            ``hub_missing_files`` (no config.json or tokenizer); ``download_failed`` when the
            hub cannot be reached.
    """
    folder = cached_folder(spec)  # checks the name first: nothing odd reaches the hub
    spec = models.canonical_id(spec)
    endpoint = hub_endpoint()
    if folder is not None:
        files = tuple(sorted((str(p.relative_to(folder)), p.stat().st_size) for p in folder.rglob("*") if p.is_file()))
        return DownloadPlan(spec, endpoint, "", files, cached=True)
    _check_downloads_on(spec)
    from huggingface_hub import HfApi

    try:
        with hub_online():
            info = HfApi(endpoint=endpoint).model_info(spec, revision="main", files_metadata=True)
            sizes = {s.rfilename: (s.lfs.size if s.lfs is not None else s.size) for s in info.siblings or []}
            if any(size is None for size in sizes.values()):  # a mirror without sizes in model_info
                sizes = {f.path: (f.lfs.size if f.lfs is not None else f.size)
                         for f in HfApi(endpoint=endpoint).list_repo_tree(spec, recursive=True, revision=info.sha)
                         if hasattr(f, "size")}
    except Exception as exc:  # noqa: BLE001 -- every failure becomes a message the page can show
        raise _as_input_error(exc, spec, endpoint) from None
    from huggingface_hub.utils import filter_repo_objects  # the filter snapshot_download applies

    kept = filter_repo_objects(list(sizes), allow_patterns=list(models.DOWNLOAD_PATTERNS))
    wanted = tuple(sorted((path, int(sizes[path])) for path in kept))
    _check_repo_files(spec, sizes, [path for path, _ in wanted])
    return DownloadPlan(spec, endpoint, str(info.sha or ""), wanted, cached=False)


def download_model(spec: str, progress: Progress | None = None, plan: DownloadPlan | None = None) -> Path:
    """Download ``spec`` into the Hugging Face cache (if it is not there yet) and return its folder.

    Args:
        spec: a hub id such as "bert-base-chinese".
        progress: ``progress(bytes_done, bytes_total)``, called from this thread: first (0, total)
            (total known before any file is fetched), then rising, last (total, total) once the
            copy is complete and checked. A download keeps going in its own thread if this one
            stops waiting (a page rerun), and finishes into the cache.
        plan: from ``plan_download`` when the caller already showed its size (saves a request).

    Returns:
        The snapshot folder, which ``models.load_model(spec)`` now loads offline.

    Raises:
        InputError: see ``plan_download``; ``download_failed`` when the connection drops or
            the server fails (nothing partial is kept or used); ``download_incomplete`` if the
            copy still misses files afterwards.
    """
    spec = models.canonical_id(spec)
    report = _Reporter(progress)
    if plan is None or plan.name != spec or plan.cached:
        plan = plan_download(spec)
    elif cached_folder(spec) is not None:  # the name's checks again (no request), and a copy that came meanwhile
        plan = replace(plan, commit="", cached=True)
    total = plan.total_bytes
    if not plan.cached:
        _check_downloads_on(spec)
        report(0, total)
        _fetch(plan, lambda done: report(min(done, total), total))
    folder = models.resolve_model(spec)[1]  # raises download_incomplete if files are missing
    report(total, total)
    return folder


def load_or_download(spec: str, progress: Progress | None = None) -> models.ModelBundle:
    """``models.load_model(spec)``, downloading ``spec`` first when it is not in the cache or its copy is incomplete.

    Args:
        spec: as for ``models.load_model``; only hub ids are downloaded (in hosted mode: allow-listed ones).
        progress: as for :func:`download_model`, called only when a download runs.

    Raises:
        InputError: those of ``models.load_model`` and, when a download runs, of :func:`download_model`.
    """
    try:
        return models.load_model(spec)
    except InputError as err:
        if err.code not in models.DOWNLOADABLE:
            raise
    download_model(spec, progress=progress)
    return models.load_model(spec)


# ---- the download itself -------------------------------------------------------------------------

class _Reporter:
    """Calls ``progress`` with values that never go down and never repeat."""

    def __init__(self, progress: Progress | None):
        self.progress, self.last = progress, None

    def __call__(self, done: int, total: int) -> None:
        if self.progress is None or (self.last is not None and done <= self.last[0] and self.last[1] == total):
            return
        self.last = (done, total)
        self.progress(done, total)


_online_lock = threading.Lock()
_online_users = 0
_offline_before = False


@contextlib.contextmanager
def hub_online() -> Iterator[None]:
    """Lift huggingface_hub's offline switch (set from HF_HUB_OFFLINE at its import) while downloads run.

    Nested and concurrent uses count; the switch comes back when the last one ends. Loading is
    unaffected meanwhile: it passes ``local_files_only=True``.
    """
    global _online_users, _offline_before
    from huggingface_hub import constants

    with _online_lock:
        if _online_users == 0:
            _offline_before = constants.HF_HUB_OFFLINE
            constants.HF_HUB_OFFLINE = False
        _online_users += 1
    try:
        yield
    finally:
        with _online_lock:
            _online_users -= 1
            if _online_users == 0:
                constants.HF_HUB_OFFLINE = _offline_before


def _fetch(plan: DownloadPlan, on_bytes: Callable[[int], None]) -> None:
    """Run snapshot_download in a worker thread; pass its byte counts to ``on_bytes`` in this thread.

    The worker, not this thread, holds the network open: if this thread is stopped (a Streamlit
    rerun raises in it), the download still finishes into the cache.
    """
    events: queue.Queue = queue.Queue()
    failure: list[BaseException] = []
    counted = [0]
    lock = threading.Lock()

    def add(n: int) -> None:  # called from huggingface_hub's download threads
        with lock:
            counted[0] += n
            events.put(counted[0])

    def work() -> None:
        from huggingface_hub import snapshot_download

        try:
            with hub_online():
                snapshot_download(plan.name, allow_patterns=list(models.DOWNLOAD_PATTERNS), endpoint=plan.endpoint,
                                  tqdm_class=_byte_counter(add))
        except BaseException as exc:  # noqa: BLE001 -- handed to the waiting thread
            failure.append(exc)
        finally:
            events.put(None)

    threading.Thread(target=work, name=f"selfattn-download-{plan.name}", daemon=True).start()
    while True:
        latest = events.get()
        while latest is not None and not events.empty():  # only the newest count matters
            latest = events.get_nowait()
        if latest is None:
            break
        on_bytes(latest)
    if failure:
        raise _as_input_error(failure[0], plan.name, plan.endpoint) from None


def _byte_counter(on_bytes: Callable[[int], None]) -> type:
    """A silent huggingface_hub progress-bar class that hands the bytes-written counts to ``on_bytes``."""
    from huggingface_hub.utils import tqdm as hf_tqdm

    class ByteCounter(hf_tqdm):
        def __init__(self, *args, **kwargs):
            self._counts_bytes = kwargs.get("name") == _BYTES_BAR
            kwargs["disable"] = True  # nothing on stderr; the caller shows progress its own way
            super().__init__(*args, **kwargs)

        def update(self, n=1):
            if self._counts_bytes and n:
                on_bytes(int(n))  # negative when a resumed file restarts from 0; the reporter never goes down
            return super().update(n)

    return ByteCounter


# ---- checks and errors ---------------------------------------------------------------------------

def _check_downloads_on(spec: str) -> None:
    if models.offline_by_host():
        raise InputError("downloads_off", f"{spec} is not on this machine, and downloads are switched off here "
                                          "(HF_HUB_OFFLINE is set).", name=spec)


def _check_repo_files(spec: str, sizes: dict[str, int], wanted: list[str]) -> None:
    """Refuse a repo without safetensors weights, config.json or a tokenizer, before fetching anything."""
    if not any(path.endswith(".safetensors") for path in wanted):
        pickles = ", ".join(sorted(p for p in sizes if p.endswith(PICKLE_SUFFIXES))) or "none"
        raise InputError("hub_no_safetensors", f"{spec} has no .safetensors weights (weights found: {pickles}); "
                         "pickle weights are never downloaded, as loading them can run code.", name=spec)
    missing = [name for name in ("config.json",) if name not in wanted]
    if not any(name in wanted for name in TOKENIZER_FILES):
        missing.append(" or ".join(TOKENIZER_FILES))
    if missing:
        raise InputError("hub_missing_files", f"{spec} lacks {', '.join(missing)}, so it cannot be loaded here.",
                         name=spec, files=", ".join(missing))


def _as_input_error(exc: BaseException, spec: str, endpoint: str) -> InputError:
    """A huggingface_hub / network failure as an InputError a page can translate."""
    from huggingface_hub import errors

    if isinstance(exc, InputError):
        return exc
    chain = [exc]
    while len(chain) < 10 and (chain[-1].__cause__ or chain[-1].__context__) is not None:
        chain.append(chain[-1].__cause__ or chain[-1].__context__)
    if any(type(e).__name__ in ("ConnectError", "ConnectTimeout", "ProxyError")  # httpx's, whatever its module
           or isinstance(e, (socket.gaierror, ConnectionRefusedError)) for e in chain):
        root = chain[-1]
        return InputError("hub_unreachable", f"Could not download {spec}: this machine cannot reach {endpoint} "
                          f"({type(root).__name__}: {root}).", name=spec)
    if any(isinstance(e, (errors.RepositoryNotFoundError, errors.RevisionNotFoundError)) for e in chain):
        return InputError("hub_not_found", f"{spec} was not found on {endpoint} (or it is private or gated).",
                          name=spec, endpoint=endpoint)
    if any(isinstance(e, errors.OfflineModeIsEnabled) for e in chain):
        return InputError("downloads_off", f"{spec} is not on this machine, and downloads are switched off here "
                                           "(HF_HUB_OFFLINE is set).", name=spec)
    root = chain[-1]
    status = getattr(getattr(root, "response", None), "status_code", None)
    reason = f"the server answered HTTP {status}" if status else (str(root).splitlines() or [""])[0]
    reason = (reason.strip().rstrip(".") or type(root).__name__)[:300]
    return InputError("download_failed", f"Downloading {spec} from {endpoint} failed: {reason}. Nothing "
                      "half-written was kept; try again.", name=spec, endpoint=endpoint, reason=reason)


def download_estimate(spec: str) -> tuple[int, tuple[float, ...]] | None:
    """The expected size of a download of ``spec`` and its seconds at each of ESTIMATE_SPEEDS, or None when unknown."""
    size = EXPECTED_BYTES.get(models.canonical_id(spec))
    return None if size is None else (size, tuple(size / speed for speed in ESTIMATE_SPEEDS))


# ---- command line --------------------------------------------------------------------------------

def format_bytes(n: int) -> str:
    """1234567 -> "1.2 MB" (decimal units, as the hub shows sizes)."""
    for unit in ("B", "kB", "MB", "GB"):
        if abs(n) < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000


def main(argv: list[str] | None = None) -> int:
    """``python -m selfattn.text.prefetch MODEL...``: download models into the Hugging Face cache.

    Prints each model's size, then progress in steps of 10 %, then the folder. Exit status 0 when
    every model is ready, 1 (with the plain message on stderr) when one fails.
    """
    parser = argparse.ArgumentParser(
        prog="python -m selfattn.text.prefetch",
        description="Download hub models (config, tokenizer, safetensors weights) into the Hugging Face cache "
                    "so that the app loads them offline. Honours HF_ENDPOINT, HF_HOME and HF_HUB_CACHE; "
                    "with SELFATTN_HOSTED=1 only the hosted allow-list.")
    parser.add_argument("models", nargs="+", metavar="MODEL", help="hub id, e.g. bert-base-chinese")
    args = parser.parse_args(argv)
    for spec in args.models:
        try:
            plan = plan_download(spec)
            if plan.cached:
                print(f"{spec}: already in the cache", flush=True)
            else:
                print(f"{spec}: {format_bytes(plan.total_bytes)} in {len(plan.files)} files from {plan.endpoint}",
                      flush=True)
            step = [-1]

            def show(done: int, total: int, spec: str = spec) -> None:
                tenth = 10 if total == 0 else done * 10 // total
                if tenth > step[0]:
                    step[0] = tenth
                    print(f"{spec}: {tenth * 10:3d}%  {format_bytes(done)} / {format_bytes(total)}", flush=True)

            folder = download_model(spec, progress=None if plan.cached else show, plan=plan)
        except InputError as err:
            print(f"prefetch: {err}", file=sys.stderr, flush=True)
            return 1
        print(f"{spec}: ready in {folder}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
