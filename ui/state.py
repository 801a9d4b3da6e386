"""Every page's settings in one table each, and the shareable link built on them.

A page's table (:func:`fields`) says for every setting it keeps: the session-state key, the
URL parameter, its codec with its limits, and its default. The same table

- fills session state from a link the first time a page opens in a session (:func:`open_page`),
- gives the pages their defaults (:func:`keep`, :func:`default`),
- writes the link as the visitor works (:func:`publish`), shown in the sidebar with a copy button,
- and drives the fuzz tests.

History: Streamlit turns every change of ``st.query_params`` into a new browser history entry,
so each keystroke, and each language switch, would be a step that Back has to undo. A small
script (:data:`HISTORY_SCRIPT`) makes a history push that keeps the same page a replacement:
a page change is one history entry, an edit is none. The first run of a session does not
write the link at all (the script is not in the browser yet), so opening the app adds no
duplicate entry; the link as opened stays until the first change.
"""

from __future__ import annotations

import functools
from typing import Callable
from urllib.parse import urlencode

import streamlit as st

from selfattn.display import share
from selfattn.i18n import LANGS
from selfattn.display.share import Bool, Choice, Choices, Field, Int, Text
from ui.common import LANG_KEY, current_lang, persist, tr

MAX_SEED = 2**31 - 1
OPENED = "_link_opened"  # pages whose link has been read in this session
WRITTEN = "_link_written"  # set once the first run of the session is over
MAX_NAMED = 8  # ignored parameters named in the message
LANG = Field(LANG_KEY, "lang", Choice(tuple(LANGS)), "en")

HISTORY_SCRIPT = """<script>
(() => {
  const h = window.history;
  if (h.__selfattnReplace) return;
  h.__selfattnReplace = true;
  const push = h.pushState.bind(h);
  h.pushState = (data, unused, url) => {
    const target = new URL(url ?? window.location.href, window.location.href);
    return target.pathname === window.location.pathname ? h.replaceState(data, unused, url) : push(data, unused, url);
  };
})();
</script>"""


# ── The tables ───────────────────────────────────────────────────────────────────────────

def _playground() -> tuple[Field, ...]:
    from selfattn.display.grid import MAX_TOKENS
    from selfattn.core.presets import PRESETS

    return (Field("pg_preset", "preset", Choice(PRESETS), "tutorial"),
            Field("pg_seed", "seed", Int(0, MAX_SEED), 0),
            Field("pg_scale", "scale", Bool(), False),
            Field("pg_causal", "causal", Bool(), False),
            Field("pg_bias", "bias", Bool(), False),
            Field("pg_focus", "focus", Int(1, MAX_TOKENS, shift=1), 0))


def _embeddings() -> tuple[Field, ...]:
    from selfattn.text import models
    from selfattn.text.embedding_text import MAX_CHARS
    from selfattn.text.embeddings import SOURCES
    if models.is_hosted():
        allowed = tuple(sorted(models.HOSTED_ALLOWLIST))
        model = Field("emb_model", "model", Choice(allowed), allowed[0])
    else:
        model = Field("emb_model", "model", Text(300), "bert-base-chinese")
    return (Field("emb_mode", "mode", Choice(("single", "pair")), "single"),
            Field("emb_text", "text", Text(MAX_CHARS), "早上好"),
            Field("emb_text_b", "text2", Text(MAX_CHARS), "Good morning"),
            Field("emb_source", "source", Choice(SOURCES), "auto"),
            model,
            Field("emb_kind", "kind", Choice(("static", "contextual")), "static"),
            Field("emb_dims", "dims", Int(4, 64), 16),
            Field("emb_scale", "scale", Bool(), False),  # with unit-length vectors ÷√d would flatten every row
            Field("emb_unit", "unit", Bool(), True),  # the character vectors are ~20 long: raw, the softmax is one-hot
            Field("emb_layer", "layer", Int(1, 64), 1),
            Field("emb_head", "head", Int(1, 64), 1),
            Field("emb_units", "units", Choice(("tokens", "words")), "tokens"),
            Field("emb_view", "map", Choice(("head", "mean", "max", "rollout")), "head"),
            Field("emb_pick", "pick", Int(0, 600), 0))  # head view: 0 all tokens, i the i-th


def _heads() -> tuple[Field, ...]:
    from selfattn import bench
    from selfattn.core.heads import MISTAKES
    from ui import heads as hd

    offer = hd.bench_choices(bench.limits_for())
    devices = tuple(hd.devices())
    return (Field("hd_input", "input", Choice(("random", "sentence")), "random"),
            Field("hd_seed", "seed", Int(0, MAX_SEED), 0),
            Field("hd_n", "n", Int(1, hd.MAX_N), 6),
            Field("hd_d", "d", Choice(hd.D_CHOICES), 16),
            Field("hd_text", "text", Text(200), "早上好，今天天气很好"),
            Field("hd_causal", "causal", Bool(), False),
            Field("hd_heads", "heads", Int(1, hd.MAX_HEADS), 4),
            Field("hd_open", "open", Choices(tuple(MISTAKES)), [MISTAKES[0]]),
            Field("hd_device", "device", Choice(devices), devices[0]),
            Field("hd_dtype", "dtype", Choice(tuple(bench.DTYPES)), "float32"),
            Field("hd_batch", "batch", Int(1, offer["batch"]), 1),
            Field("hd_bench_d", "bd", Choice(tuple(offer["d_model"])), 512),
            Field("hd_bench_heads", "bh", Choices(tuple(offer["heads"])), [1, 8]),
            Field("hd_bench_lens", "bn", Choices(tuple(offer["seq_len"])), [128, 256, 512]),
            Field("hd_bench_impls", "bi", Choices(tuple(offer["impls"])), list(offer["impls"])),
            Field("hd_bundled", "results", Choices(tuple(hd.bundled_results())), []))


TABLES: dict[str, Callable[[], tuple[Field, ...]]] = {
    "home": tuple, "playground": _playground, "embeddings": _embeddings, "heads": _heads}


def fields(page: str) -> tuple[Field, ...]:
    """The settings ``page`` keeps (every page's link also carries the language)."""
    from selfattn.text.models import is_hosted

    return _fields(page, is_hosted())  # hosted mode offers fewer models and smaller benchmarks


@functools.cache
def _fields(page: str, hosted: bool) -> tuple[Field, ...]:
    del hosted  # part of the cache key only
    return TABLES[page]()


def field(key: str) -> Field:
    for page in TABLES:
        for f in fields(page):
            if f.key == key:
                return f
    raise KeyError(key)


def default(key: str):
    """A setting's default, from its page's table."""
    value = field(key).default
    return list(value) if isinstance(value, list) else value


def keep(key: str):
    """Keep a widget's value across pages (``ui.common.persist``) with its default from the table."""
    persist(key, default(key))
    return st.session_state[key]


# ── Reading a link ───────────────────────────────────────────────────────────────────────

def open_page(page: str, extra: Callable[[dict[str, str]], dict[str, share.BadValue]] | None = None,
              extra_params: tuple[str, ...] = ()) -> None:
    """The first time ``page`` opens in this session, take its settings from the link.

    Settings that are fine go into session state; each other one is named in a message, in
    plain words, with the reason. Runs once per page per session: later runs (and Back or
    Forward, which bring back a link this session wrote) keep what the visitor has on screen.

    Args:
        extra: reads the page's own parameters beyond its table (the Playground's cells) and
            returns the bad ones.
        extra_params: the names ``extra`` reads, so they are not called unknown.
    """
    opened = st.session_state.setdefault(OPENED, set())
    if page in opened:
        return
    opened.add(page)
    params = st.query_params.to_dict()
    if not params:
        return
    own = fields(page)
    values, bad = share.decode_fields(own, params)
    for key, value in values.items():
        st.session_state[key] = value
        st.session_state[f"_keep_{key}"] = value  # persist() reads the shadow when the key is not set
    if extra is not None:
        bad.update(extra(params))
    if "lang" in params and params["lang"] not in LANGS:
        bad["lang"] = share.BadValue("not_offered", options=", ".join(LANGS))
    known = {f.param for f in own} | set(extra_params) | {"lang"}
    for name in params:
        if name not in known:
            bad[name] = share.BadValue("unknown")
    if bad:
        st.session_state[f"_link_bad_{page}"] = bad


def show_problems(page: str) -> None:
    """Say which settings of the opened link were not used, and why (once, right after opening)."""
    bad = st.session_state.pop(f"_link_bad_{page}", None)
    if not bad:
        return
    unknown = [name for name, exc in bad.items() if exc.reason == "unknown"]
    known = [(name, exc) for name, exc in bad.items() if exc.reason != "unknown"]
    lines = [f"- `{_shown(name)}`: {tr(f'share.why_{exc.reason}', **exc.params)}" for name, exc in known[:MAX_NAMED]]
    if len(known) > MAX_NAMED:
        lines.append("- " + tr("share.more", n=len(known) - MAX_NAMED))
    if unknown:
        names = ", ".join(f"`{_shown(name)}`" for name in unknown[:MAX_NAMED])
        if len(unknown) > MAX_NAMED:
            names += ", " + tr("share.more", n=len(unknown) - MAX_NAMED)
        lines.append(f"- {names}: {tr('share.why_unknown')}")
    st.warning(tr("share.ignored") + "\n\n" + "\n".join(lines), icon=":material/link_off:")


def _shown(name: str) -> str:
    """A parameter name as the message shows it: short, and nothing that breaks out of the code span."""
    name = "".join(ch if ch.isprintable() and ch != "`" else "?" for ch in name)
    return name if len(name) <= 24 else name[:23] + "…"


# ── Writing the link ─────────────────────────────────────────────────────────────────────

def params_for(page: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The link's parameters for what ``page`` shows now (defaults left out)."""
    params = share.encode_fields((LANG,), {LANG_KEY: current_lang()})
    params.update(share.encode_fields(fields(page), st.session_state))
    params.update(extra or {})
    return params


def publish(page: str, url_path: str, extra: dict[str, str] | None = None, bulky: tuple[str, ...] = ()) -> None:
    """Write the page's settings into the URL and show the link, with a copy button, in the sidebar.

    Args:
        url_path: the page's path ("playground"; "" for home), for the link shown in tests.
        extra: the page's own parameters beyond its table.
        bulky: parameters dropped, with a word to the visitor, when the link would be too long.
    """
    params = params_for(page, extra)
    query = urlencode(params)
    too_long = len(query) > share.MAX_LINK_CHARS
    if too_long:
        params = {k: v for k, v in params.items() if k not in bulky}
        query = urlencode(params)
    if st.session_state.get(WRITTEN) and st.query_params.to_dict() != params:
        st.query_params.from_dict(params)
    st.session_state[WRITTEN] = True
    base = st.context.url or f"/{url_path}"
    link = base.split("?")[0] + (f"?{query}" if query else "")
    with st.sidebar:
        st.html(HISTORY_SCRIPT, unsafe_allow_javascript=True)
        st.caption(tr("share.caption"))
        st.code(link, language=None, wrap_lines=False)
        if too_long:
            st.warning(tr("share.too_long", n=share.MAX_LINK_CHARS), icon=":material/link_off:")


def stop(page: str, url_path: str, **kwargs) -> None:
    """``st.stop()``, after writing the link (a page that stops early still shares its settings)."""
    publish(page, url_path, **kwargs)
    st.stop()
