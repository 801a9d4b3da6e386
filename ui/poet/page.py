"""写诗 / A tiny poet: the inputs read (settings of ``selfattn/poet/view.py``, kept with ``ui.state``), the poem written
with ``last_good`` (unknown characters, empty, too long, emoji: a message naming them, the last good poem kept),
then drawn: the poem, one step's candidates, attention and cache, the checks, how it learned, and the words.

Every sentence that states a number takes it from the poem, the model or ``record.json``.
"""

from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

from selfattn.display.numbers import difference_text
from selfattn.errors import InputError
from selfattn.hosting import is_hosted
from selfattn.poet import Poem, cache_check, checkpoint_poets, generate, load_poet, torch_check
from selfattn.poet import charts
from selfattn.poet.view import MAX_SEED, MODES, TEMPERATURES, TOP_CANDIDATES, TOP_PS, limits
from ui import links
from ui import state as settings
from ui.widgets import choice, csv_button, show_error, tr, tr_plain, vega
from ui.map_sizes import fit_heatmap

CHECK_TOLERANCE = 1e-9  # a difference above this is a failure, said in red


@st.cache_resource(show_spinner=False)
def poet():
    """The shipped model, once per process."""
    return load_poet()


@st.cache_resource(show_spinner=False)
def checkpoints() -> dict:
    """Training step → the model then (the int8 checkpoints, the shipped model last)."""
    return checkpoint_poets(poet())


@st.cache_resource(show_spinner=False)
def torch_reference():
    """A torch module holding the shipped weights in float64, once per process."""
    import selfattn.poet.torch_model as torch_model

    return torch_model.reference(poet().weights)


def check_line(key: str, difference: float) -> None:
    ok = difference <= CHECK_TOLERANCE
    (st.success if ok else st.error)(tr(key, diff=difference_text(difference)),
                                     icon=":material/verified:" if ok else ":material/error:")


# ── Inputs ──────────────────────────────────────────────────────────────────────────────

def inputs() -> dict:
    """The widgets, read: the keywords of :func:`selfattn.poet.generate` (the typed text not yet checked)."""
    with st.container(border=True):
        top = st.columns([2, 3], vertical_alignment="bottom")
        with top[0]:
            mode = choice(st.segmented_control, tr("po.mode"), MODES, "po_mode",
                          {m: tr_plain(f"po.mode_{m}") for m in MODES})
        with top[1]:
            if mode == "acrostic":
                settings.keep("po_acrostic")
                st.text_input(tr("po.acrostic"), key="po_acrostic", help=tr("po.acrostic_help"))
            else:
                settings.keep("po_first")
                st.text_input(tr("po.first"), key="po_first", help=tr("po.first_help"))
        c = st.columns(5, vertical_alignment="bottom")
        settings.keep("po_temp", TEMPERATURES)
        c[0].select_slider(tr("po.temp"), options=TEMPERATURES, key="po_temp", format_func=lambda v: f"{v / 100:.2f}",
                           help=tr("po.temp_help"))
        settings.keep("po_top_k")
        c[1].number_input(tr("po.top_k"), min_value=0, max_value=None, step=1, key="po_top_k",
                          help=tr("po.top_k_help"))
        settings.keep("po_top_p", TOP_PS)
        c[2].select_slider(tr("po.top_p"), options=TOP_PS, key="po_top_p", format_func=lambda v: f"{v / 100:.2f}",
                           help=tr("po.top_p_help"))
        settings.keep("po_seed")
        c[3].number_input(tr("po.seed"), 0, MAX_SEED, step=1, key="po_seed", help=tr("po.seed_help"))
        settings.keep("po_greedy")
        c[4].toggle(tr("po.greedy"), key="po_greedy", help=tr("po.greedy_help"))
    text = settings.value("po_acrostic" if mode == "acrostic" else "po_first")
    top_k, top_p = int(settings.value("po_top_k")), int(settings.value("po_top_p"))
    return {"acrostic" if mode == "acrostic" else "first": text,
            "temperature": int(settings.value("po_temp")) / 100, "top_k": top_k or None,
            "top_p": top_p / 100 if top_p < 100 else None, "greedy": bool(settings.value("po_greedy")),
            "seed": int(settings.value("po_seed"))}


def write(request: dict, model=None) -> Poem:
    """The poem of ``request``, within the page's limits (hosted: fewer characters typed, a smaller top-k)."""
    limit = limits(is_hosted())
    for name in ("acrostic", "first"):
        text = request.get(name)
        if text is not None and len(str(text)) > limit["chars"]:
            raise InputError("poet_too_long", f"{name}: {len(str(text))} characters", name=name,
                             got=len(str(text)), limit=limit["chars"])
    if request["top_k"] is not None and request["top_k"] > limit["top_k"]:
        raise InputError("poet_top_k", f"top-k {request['top_k']}", value=request["top_k"], limit=limit["top_k"])
    return generate(model or poet(), **request)


# ── The poem and its steps ──────────────────────────────────────────────────────────────

def character_steps(poem: Poem) -> list:
    """The steps that wrote a character (drawn or given; not the marks or <eos>)."""
    return [s for s in poem.steps if s.sampling is not None and s.place < 5 and s.token != "<eos>"]


def show_poem(poem: Poem) -> None:
    st.subheader(tr("po.poem_title"))
    st.markdown("\n".join(f"### {line}{'，' if i % 2 == 0 else '。'}" for i, line in enumerate(poem.lines)))
    steps = character_steps(poem)
    st.caption(tr("po.poem_caption", lines=len(poem.lines), drawn=sum(s.kind == "drawn" for s in steps),
                  given=sum(s.kind == "given" for s in steps)))


def _go(step: int) -> None:
    settings.put("po_step", step)


def show_step(poem: Poem) -> None:
    """One character's step: the candidates before and after the knobs, each layer's attention, the cache."""
    model = poet()
    st.subheader(tr("po.step_title"))
    steps = character_steps(poem)
    count = len(steps)
    settings.keep("po_step", range(count))
    row = st.columns([6, 2, 2], vertical_alignment="bottom")
    row[0].select_slider(tr("po.step"), options=list(range(count)), key="po_step",
                         format_func=lambda i: f"{i + 1} {steps[i].token}")
    k = int(settings.value("po_step"))
    row[1].button(tr("po.back"), key="po_back", on_click=_go, args=(max(k - 1, 0),), disabled=k == 0,
                  width="stretch")
    row[2].button(tr("po.next"), key="po_next", on_click=_go, args=(min(k + 1, count - 1),),
                  disabled=k >= count - 1, width="stretch")
    s = steps[k]
    st.markdown(tr("po.step_line", k=k + 1, count=count, token=s.token, line=s.line + 1, place=s.place + 1))
    if s.kind == "given":
        st.caption(tr("po.kind_given", p=f"{s.probability:.4f}"))
    elif s.draw is None:
        st.caption(tr("po.kind_greedy"))
    else:
        st.caption(tr("po.kind_drawn", u=f"{s.draw:.4f}"))
    tokens = model.vocab.tokens
    rows = charts.candidate_rows(s.sampling, tokens, s.token_id, TOP_CANDIDATES)
    words = {name: tr_plain(f"po.chart_{name}") for name in ("before", "after", "candidate", "probability", "state")}
    words.update({name: tr_plain(f"po.status_{name}") for name in ("drawn", "cut_k", "cut_p", "kept")})
    left, right = st.columns([1, 1])
    with left:
        vega(charts.candidates_spec(rows, words))
    with right:
        table = pd.DataFrame({tr_plain("po.col_rank"): [r["rank"] for r in rows],
                              tr_plain("po.col_token"): [r["token"] for r in rows],
                              tr_plain("po.col_before"): [round(r["before"], 4) for r in rows],
                              tr_plain("po.col_tempered"): [round(r["tempered"], 4) for r in rows],
                              tr_plain("po.col_after"): [round(r["after"], 4) for r in rows],
                              tr_plain("po.col_state"): [words[r["status"]] for r in rows]})
        st.dataframe(table, hide_index=True, width="stretch")
        csv_button(table, f"poet-step{k + 1}-candidates", key="po_csv_candidates")
    sums = charts.step_sums(s.sampling, rows)
    st.caption(tr("po.sums", kept=sums["kept"], allowed=sums["allowed"], sum=f"{sums['sum']:.6f}", n=len(rows),
                  top=f"{sums['top']:.3f}"))
    read = [("<bos>" if t == "<bos>" else t) for t in (tokens[i] for i in poem.ids[: s.position])]
    heads = [tr_plain("po.head", h=h + 1) for h in range(model.config.num_heads)]
    for layer, weights in enumerate(s.attention):
        st.markdown(f"**{tr('po.attn_title', layer=layer + 1)}**")
        vega(fit_heatmap(weights, heads, [f"{i}{t}" for i, t in enumerate(read)], 900, max_cell=40,
                         role="weights", domain=(0.0, 1.0), annotate=len(read) <= 12,
                         value_title=tr_plain("chart.weight")))
        frame = pd.DataFrame(weights, index=heads, columns=[f"{i}:{t}" for i, t in enumerate(read)])
        csv_button(frame, f"poet-step{k + 1}-attention-layer{layer + 1}", key=f"po_csv_attn{layer + 1}")
    st.caption(tr("po.attn_caption"))
    keys = s.read.cache.keys
    n, d = keys[0].shape[1], keys[0].shape[2]
    st.markdown(tr("po.cache_line", layers=len(keys), heads=keys[0].shape[0], n=n, d=d,
                   total=len(keys) * keys[0].shape[0] * n * d))


def checks(poem: Poem) -> None:
    """The two checks, computed now: the cached steps against one full pass, our logits against torch's."""
    check_line("po.cache_same", cache_check(poet(), poem))
    check_line("po.torch_same", torch_check(poet(), poem, torch_reference()))


# ── How it learned ──────────────────────────────────────────────────────────────────────

def learning(request: dict) -> None:
    st.subheader(tr("po.learn_title"))
    found = checkpoints()
    record = poet().record or {}
    options = sorted(found)
    settings.keep("po_ckpt", options, fallback=options[-1])
    st.select_slider(tr("po.ckpt"), options=options, key="po_ckpt")
    chosen = int(settings.value("po_ckpt"))
    words = {"train": tr_plain("po.loss_train"), "held_out": tr_plain("po.loss_held_out"),
             "shown": tr_plain("po.loss_shown"), "step": tr_plain("po.loss_step"), "loss": tr_plain("po.loss_axis")}
    marks = [*record.get("checkpoints", []), {**record.get("held_out", {}), "step": record.get("steps", chosen)}]
    vega(charts.loss_spec(record.get("loss_curve", []), marks, chosen, words))
    at = next((c for c in marks if int(c.get("step", -1)) == chosen), None)
    if at is not None:
        st.markdown(tr("po.ckpt_line", step=chosen, steps=record.get("steps", chosen),
                       train=f"{at['train_loss']:.3f}", held=f"{at['val_loss']:.3f}"))
    try:
        then = write(request, found[chosen])
        st.markdown(f"#### {then.text}")
    except InputError as error:
        show_error(error, kept=False)
    if is_hosted():
        st.caption(tr("po.train_hosted"))
    else:
        figures = charts.loss_figures(record)
        st.caption(tr("po.train_local", minutes=figures["minutes"] if figures else 3))


def explanations() -> None:
    st.subheader(tr("po.words_title"))
    for key in ("po.words_decoder", "po.words_sampling", "po.words_mask"):
        st.markdown(tr(key))
    figures = charts.loss_figures(poet().record)
    if figures is not None:
        text = tr("po.words_loss", held=figures["held"], val=f"{figures['val']:.3f}", ppl=f"{figures['ppl']:,.0f}",
                  uni=f"{figures['uni']:.3f}", bi=f"{figures['bi']:.3f}")
        more = tr("po.words_loss_ahead") if figures["ahead"] else tr("po.words_loss_behind",
                                                                      minutes=figures["minutes"])
        st.markdown(text + " " + more)
    st.markdown(tr("po.words_imitates"))


# ── The page ────────────────────────────────────────────────────────────────────────────

def draw_page() -> None:
    model = poet()
    st.caption(tr("po.intro", params=f"{model.parameters:,}", layers=model.config.layers, d=model.config.d_model,
                  heads=model.config.num_heads, poems=f"{(model.record or {}).get('poems', {}).get('train', 0):,}"))
    request = inputs()
    poem, error = settings.last_good("po_good", partial(write, request))
    if error is not None:
        show_error(error, kept=poem is not None)
    if poem is None:
        links.publish("poet")
        return
    show_poem(poem)
    show_step(poem)
    checks(poem)
    learning(request)
    explanations()
    links.publish("poet")
