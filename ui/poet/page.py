"""写诗 / A tiny poet: the inputs read (settings of ``selfattn/poet/view.py``, kept with ``ui.state``), the poem written
with ``last_good`` (unknown characters, empty, too long, emoji: a message naming them, the last good poem kept),
then drawn in four parts (``ui/parts.py``, only the open one runs, ``part=`` in the link): write (the settings, the
poem, the checks); one step (played with ``ui/play.py``'s Player: the candidates, each layer's attention, the K and V
cache growing and its check against a full pass); how it learned; the words. Then one ZIP of every table and the link.

Every sentence that states a number takes it from the poem, the model or ``record.json``.
"""

from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

from selfattn import memo
from selfattn.core.heads import merge_heads
from selfattn.display.export import column_names, labelled, zip_tables
from selfattn.display.numbers import difference_text
from selfattn.errors import InputError
from selfattn.hosting import is_hosted
from selfattn.poet import Poem, cache_check, checkpoint_poets, generate, load_poet, step_cache_difference, torch_check
from selfattn.poet import charts
from selfattn.poet.charts import character_steps
from selfattn.poet.view import MAX_SEED, MODES, PARTS, TEMPERATURES, TOP_CANDIDATES, TOP_PS, limits, settings_text
from ui import links, parts, training
from ui import state as settings
from ui.components.heatmap import heatmap, map_data
from ui.play import Player
from ui.widgets import choice, csv_button, current_lang, show_error, tr, tr_plain, vega

CHECK_TOLERANCE = 1e-9  # a difference above this is a failure, said in red
PLAYER = Player("po_playing", "po_step", "po_play", "poet", words="po")  # the step's Play/Pause (ui/play.py)
MAP_GROUP = "po"  # the step's attention and cache maps light up together (ui/components/heatmap.js)


@st.cache_resource(show_spinner=False)
def poet():
    """The shipped model, once per process."""
    return load_poet()


OWN = "po_own"  # the visitor's own run (selfattn.poet.train.LiveRun), while the page writes with it
ASKED = "po_train_asked"  # the Train button's request, until the learned part draws the run's progress


def own():
    """The visitor's own run while the page writes with it (local only), else None."""
    return None if is_hosted() else st.session_state.get(OWN)


def model():
    """The model the page writes with: the visitor's own run, else the shipped one."""
    run = own()
    return run.poet if run is not None else poet()


@st.cache_resource(show_spinner=False)
def checkpoints() -> dict:
    """Training step → the model then (the int8 checkpoints, the shipped model last)."""
    return checkpoint_poets(poet())


@st.cache_resource(show_spinner=False)
def torch_reference():
    """A torch module holding the shipped weights in float64, once per process."""
    import selfattn.poet.torch_model as torch_model

    return torch_model.reference(poet().weights)


def check_line(key: str, difference: float, **params) -> None:
    ok = difference <= CHECK_TOLERANCE
    (st.success if ok else st.error)(tr(key, diff=difference_text(difference), **params),
                                     icon=":material/verified:" if ok else ":material/error:")


# ── Inputs ──────────────────────────────────────────────────────────────────────────────

def inputs() -> dict:
    """The widgets, read: the keywords of :func:`selfattn.poet.generate` (the typed text not yet checked)."""
    with st.container(border=True):
        # rows that wrap on a narrow screen, each control as wide as it needs (columns cut the mode's names and
        # "Greedy" at 1024 px)
        with st.container(horizontal=True, wrap=True, vertical_alignment="bottom"):
            with st.container(width="content"):
                mode = choice(st.segmented_control, tr("po.mode"), MODES, "po_mode",
                              {m: tr_plain(f"po.mode_{m}") for m in MODES})
            with st.container(width=300):
                if mode == "acrostic":
                    settings.keep("po_acrostic")
                    st.text_input(tr("po.acrostic"), key="po_acrostic", help=tr("po.acrostic_help"))
                else:
                    settings.keep("po_first")
                    st.text_input(tr("po.first"), key="po_first", help=tr("po.first_help"))
        with st.container(horizontal=True, wrap=True, vertical_alignment="bottom"):
            settings.keep("po_temp", TEMPERATURES)
            st.container(width=170).select_slider(tr("po.temp"), options=TEMPERATURES, key="po_temp",
                                                  format_func=lambda v: f"{v / 100:.2f}", help=tr("po.temp_help"))
            settings.keep("po_top_k")
            st.container(width=130).number_input(tr("po.top_k"), min_value=0, max_value=None, step=1, key="po_top_k",
                                                 help=tr("po.top_k_help"))
            settings.keep("po_top_p", TOP_PS)
            st.container(width=170).select_slider(tr("po.top_p"), options=TOP_PS, key="po_top_p",
                                                  format_func=lambda v: f"{v / 100:.2f}", help=tr("po.top_p_help"))
            settings.keep("po_seed")
            st.container(width=130).number_input(tr("po.seed"), 0, MAX_SEED, step=1, key="po_seed",
                                                 help=tr("po.seed_help"))
            settings.keep("po_greedy")
            st.toggle(tr("po.greedy"), key="po_greedy", help=tr("po.greedy_help"), width="content")
    return request()


def request() -> dict:
    """The settings as they are (drawn or kept), as the keywords of :func:`selfattn.poet.generate` (the typed text
    not yet checked): what every part writes its poem from, whether or not the inputs are drawn."""
    mode = settings.value("po_mode")
    text = settings.value("po_acrostic" if mode == "acrostic" else "po_first")
    top_k, top_p = int(settings.value("po_top_k")), int(settings.value("po_top_p"))
    return {"acrostic" if mode == "acrostic" else "first": text,
            "temperature": int(settings.value("po_temp")) / 100, "top_k": top_k or None,
            "top_p": top_p / 100 if top_p < 100 else None, "greedy": bool(settings.value("po_greedy")),
            "seed": int(settings.value("po_seed"))}


def write(request: dict, writer=None) -> Poem:
    """The poem of ``request``, within the page's limits (hosted: fewer characters typed, a smaller top-k)."""
    limit = limits(is_hosted())
    for name in ("acrostic", "first"):
        text = request.get(name)
        if text is not None and len(str(text)) > limit["chars"]:
            raise InputError("poet_too_long", f"{name}: {len(str(text))} characters", name=name,
                             got=len(str(text)), limit=limit["chars"])
    if request["top_k"] is not None and request["top_k"] > limit["top_k"]:
        raise InputError("poet_top_k", f"top-k {request['top_k']}", value=request["top_k"], limit=limit["top_k"])
    if writer is None and own() is None:
        return shipped_poem(request)
    return generate(writer or model(), **request)


@memo.cached("poet.poems", key=lambda request: tuple(sorted(request.items())))
def shipped_poem(request: dict) -> Poem:
    """The shipped model's poem of ``request``, kept per process: a class opening one link shares one poem (a
    four-line poem's steps, with their probabilities and caches, are about 4 MB) instead of holding a copy each."""
    return generate(poet(), **request)


# ── The poem and its steps ──────────────────────────────────────────────────────────────

def written(request: dict) -> Poem | None:
    """The poem of ``request``, or the last good one with the error said (None: none yet). The session keeps the
    last good request, not its poem: a four-line poem's steps hold 4 MB, and a class whose visitors each kept their
    own grew the server by 9-12 MB a visitor; the poem comes from the process's cache or is written again (12 ms)."""
    made = {}

    def check() -> dict:
        made["poem"] = write(request)
        return dict(request)

    kept, error = settings.last_good("po_good", check)
    if error is None:
        return made["poem"]
    show_error(error, kept=kept is not None)
    return last_poem()


def last_poem() -> Poem | None:
    """The poem of the last good request (None: none yet)."""
    kept = settings.kept("po_good")
    try:
        return None if kept is None else write(kept)
    except InputError:  # a request good when kept is good again (the limits are the process's)
        return None


def shown_step(poem: Poem) -> int:
    """The character shown (the setting ``po_step``, within the poem's characters), kept: call it before its box."""
    return settings.keep("po_step", range(len(character_steps(poem))))


def step_now(poem: Poem) -> int:
    """The character shown, read without writing anything (safe after its box is drawn)."""
    return min(max(int(settings.value("po_step")), 0), len(character_steps(poem)) - 1)


def show_poem(poem: Poem) -> None:
    st.subheader(tr("po.poem_title"))
    st.markdown("\n".join(f"### {line}{'，' if i % 2 == 0 else '。'}" for i, line in enumerate(poem.lines)))
    steps = character_steps(poem)
    st.caption(tr("po.poem_caption", lines=len(poem.lines), drawn=sum(s.kind == "drawn" for s in steps),
                  given=sum(s.kind == "given" for s in steps)))
    held = (poet().record or {}).get("held_out", {}).get("val_loss")
    m = st.columns(3)
    m[0].metric(tr("po.metric_drawn"), sum(s.kind == "drawn" for s in steps))
    m[1].metric(tr("po.metric_given"), sum(s.kind == "given" for s in steps))
    m[2].metric(tr("po.metric_surprise"), f"{charts.nats_per_character(poem):.2f}",
                help=tr("po.metric_surprise_help", held=f"{held:.2f}" if held is not None else "—"))


def _go(step: int) -> None:
    PLAYER.stop()
    settings.put("po_step", step)


def read_labels(poem: Poem, s) -> list[str]:
    """The positions step ``s`` reads (``<bos>`` and the poem before it), numbered: "0<bos>", "1春", …"""
    tokens = model().vocab.tokens
    return [f"{i}{tokens[t]}" for i, t in enumerate(poem.ids[: s.position])]


def step_tables(poem: Poem, k: int) -> dict:
    """Every matrix of character ``k``'s step, each a function building its labelled table (built when asked for):
    the candidates, and per layer the heads' attention row and the K and V cache (heads merged)."""
    config = model().config
    s = character_steps(poem)[k]
    rows = charts.candidate_rows(s.sampling, model().vocab.tokens, s.token_id, TOP_CANDIDATES)
    read = read_labels(poem, s)
    heads = [tr_plain("po.head", h=h + 1) for h in range(config.num_heads)]
    d = config.d_model
    tables = {"candidates": partial(candidate_table, rows, exact=True)}
    for layer, weights in enumerate(s.attention):
        tables[f"attention_layer{layer + 1}"] = partial(labelled, weights, heads, read)
        tables[f"k_cache_layer{layer + 1}"] = partial(labelled, merge_heads(s.read.cache.keys[layer]), read,
                                                      column_names("k", d))
        tables[f"v_cache_layer{layer + 1}"] = partial(labelled, merge_heads(s.read.cache.values[layer]), read,
                                                      column_names("v", d))
    return tables


def candidate_table(rows: list[dict], exact: bool = False) -> pd.DataFrame:
    """The candidates of a step as a table: rounded to 4 digits on screen, ``exact`` in a CSV."""
    words = {name: tr_plain(f"po.status_{name}") for name in ("drawn", "cut_k", "cut_p", "kept")}

    def shown(p: float) -> float:
        return p if exact else round(p, 4)

    return pd.DataFrame({tr_plain("po.col_rank"): [r["rank"] for r in rows],
                         tr_plain("po.col_token"): [r["token"] for r in rows],
                         tr_plain("po.col_before"): [shown(r["before"]) for r in rows],
                         tr_plain("po.col_tempered"): [shown(r["tempered"]) for r in rows],
                         tr_plain("po.col_after"): [shown(r["after"]) for r in rows],
                         tr_plain("po.col_state"): [words[r["status"]] for r in rows]})


def show_step(poem: Poem) -> None:
    """One character's step: the candidates before and after the knobs, each layer's attention, the K and V cache
    growing, and the cache's check at this step. Played by :data:`PLAYER`."""
    writer = model()
    st.subheader(tr("po.step_title"))
    steps = character_steps(poem)
    count = len(steps)
    PLAYER.advance(count - 1)  # while playing: a step on, before the step is drawn or linked
    k = shown_step(poem)
    row = st.columns([5, 2, 2, 2], vertical_alignment="bottom")
    with row[0]:
        k = PLAYER.step_box(tr("po.step"), range(count), {i: f"{i + 1} {steps[i].token}" for i in range(count)})
    row[1].button(tr("po.back"), key="po_back", on_click=_go, args=(max(k - 1, 0),), disabled=k == 0,
                  width="stretch", icon=":material/chevron_left:")
    row[2].button(tr("po.next"), key="po_next", on_click=_go, args=(min(k + 1, count - 1),),
                  disabled=k >= count - 1, width="stretch", icon=":material/chevron_right:")
    PLAYER.draw_button(count - 1, row[3])
    s = steps[k]
    st.markdown(tr("po.step_line", k=k + 1, count=count, token=s.token, line=s.line + 1, place=s.place + 1))
    if s.kind == "given":
        st.caption(tr("po.kind_given", p=f"{s.probability:.4f}"))
    elif s.draw is None:
        st.caption(tr("po.kind_greedy"))
    else:
        st.caption(tr("po.kind_drawn", u=f"{s.draw:.4f}"))
    tables = step_tables(poem, k)
    rows = charts.candidate_rows(s.sampling, writer.vocab.tokens, s.token_id, TOP_CANDIDATES)
    words = {name: tr_plain(f"po.chart_{name}") for name in ("before", "after", "candidate", "probability", "state")}
    words.update({name: tr_plain(f"po.status_{name}") for name in ("drawn", "cut_k", "cut_p", "kept")})
    left, right = st.columns([1, 1])
    with left:
        vega(charts.candidates_spec(rows, words))
    with right:
        st.dataframe(candidate_table(rows), hide_index=True, width="stretch")
        csv_button(tables["candidates"], f"poet-step{k + 1}-candidates", key="po_csv_candidates")
    sums = charts.step_sums(s.sampling, rows)
    st.caption(tr("po.sums", kept=sums["kept"], allowed=sums["allowed"], sum=f"{sums['sum']:.6f}", n=len(rows),
                  top=f"{sums['top']:.3f}"))
    read = read_labels(poem, s)
    heads = [tr_plain("po.head", h=h + 1) for h in range(writer.config.num_heads)]
    for layer, weights in enumerate(s.attention):
        title = tr_plain("po.attn_title", layer=layer + 1)
        st.markdown(f"**{title}**")
        # Linked maps (ui/components/heatmap.py): a head's row over the positions read is a "cross:" map (row i a
        # head, column j a position); hovering a character's column lights its K and V rows ("src:") below.
        heatmap(f"map_po_attn{layer + 1}", map_data(weights, heads, read, name=title, role="weights",
                                                    domain=(0.0, 1.0), link=f"cross:l{layer + 1}", group=MAP_GROUP))
        csv_button(tables[f"attention_layer{layer + 1}"], f"poet-step{k + 1}-attention-layer{layer + 1}",
                   key=f"po_csv_attn{layer + 1}")
    st.caption(tr("po.attn_caption"))
    show_cache(poem, k, tables)


def show_cache(poem: Poem, k: int, tables: dict) -> None:
    """Each layer's K and V cache at character ``k``'s step (a row per position read, heads side by side), the
    cache's size, and the check of this step's cache and logits against one full pass."""
    s = character_steps(poem)[k]
    keys = s.read.cache.keys
    h, n, hd = keys[0].shape
    d = h * hd
    read = read_labels(poem, s)
    st.markdown(tr("po.cache_line", layers=len(keys), heads=h, n=n, d=hd, total=len(keys) * h * n * hd))
    st.caption(tr("po.cache_caption", h=h, hd=hd, last=read[-1]))
    for layer in range(len(keys)):
        cols = st.columns(2)
        for col, name, title, prefix in ((cols[0], "k", "po.cache_k", "k"), (cols[1], "v", "po.cache_v", "v")):
            table = tables[f"{name}_cache_layer{layer + 1}"]
            with col:
                name_shown = tr_plain(title, layer=layer + 1, n=n, d=d)
                st.markdown(f"**{name_shown}**")
                heatmap(f"map_po_{name}{layer + 1}", map_data(table().to_numpy(), read, column_names(prefix, d),
                                                              name=name_shown, role="values",
                                                              link=f"src:{name}{layer + 1}", group=MAP_GROUP))
                csv_button(table, f"poet-step{k + 1}-{name}-cache-layer{layer + 1}",
                           key=f"po_csv_{name}{layer + 1}")
    check_line("po.step_cache_same", step_cache_difference(model(), poem, poem.steps.index(s)), n=n)


@memo.cached("poet.checks", key=lambda ids, _poem: ids)
def shipped_checks(ids: tuple[int, ...], _poem: Poem) -> tuple[float, float]:
    """The shipped model's two checks of the poem of tokens ``ids``, once a process: its logits follow from its tokens
    alone, and a class opening one link asked torch for the same pass forty times (0.1 s of server time an open)."""
    return cache_check(poet(), _poem), torch_check(poet(), _poem, torch_reference())


def checks(poem: Poem) -> None:
    """The two checks, computed now: the cached steps against one full pass, our logits against torch's."""
    writer = own()
    if writer is None:
        cached, torch_difference = shipped_checks(tuple(poem.ids), poem)
        check_line("po.cache_same", cached)
        check_line("po.torch_same", torch_difference)
    else:  # the visitor's own weights: torch's module is built for them (a few ms)
        check_line("po.cache_same", cache_check(writer.poet, poem))
        check_line("po.torch_same", torch_check(writer.poet, poem))


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
        train_own(record)


def _ask() -> None:
    """Callback of the Train button: the run to start where the learned part draws it (a button's own value does
    not survive a rerun before it is read); a playing generation stops."""
    st.session_state[ASKED] = True
    PLAYER.stop()


def _back_to_shipped() -> None:
    st.session_state.pop(OWN, None)


def train_own(record: dict) -> None:
    """Locally: train a model of one's own here (bounded: at most the shipped run's passes, one run at a time in
    the process, two threads), with its progress; the page then writes with it until the visitor goes back."""
    from selfattn.poet.train import LIVE_EPOCHS

    st.markdown(f"#### {tr('po.train_title')}")
    figures = charts.loss_figures(record)
    st.caption(tr("po.train_local", minutes=figures["minutes"] if figures else 3))
    run = own()
    if run is not None:
        shipped = charts.final_loss(record)
        st.info(tr("po.train_using", epochs=f"{run.epochs:g}", seed=run.seed, steps=run.steps,
                   seconds=f"{run.seconds:.1f}", loss=f"{run.last_loss:.3f}",
                   shipped=f"{shipped:.3f}" if shipped is not None else "—"),
                icon=":material/model_training:")
        st.button(tr("po.train_back"), key="po_train_back", on_click=_back_to_shipped, icon=":material/undo:")
    seed = int(settings.value("po_seed"))
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    epochs = c1.select_slider(tr("po.train_epochs"), options=LIVE_EPOCHS, value=LIVE_EPOCHS[1], key="po_train_epochs",
                              format_func=lambda e: f"{e:g}", help=tr("po.train_epochs_help"))
    c2.button(tr("po.train_run"), key="po_train", on_click=_ask, type="primary", icon=":material/model_training:",
              width="stretch")
    st.caption(tr("po.train_seed_note", seed=seed))
    if st.session_state.pop(ASKED, False):
        run_training(epochs, seed)


def run_training(epochs: float, seed: int) -> None:
    """One run, its progress drawn as it goes; then the page writes with it (rerun)."""
    from selfattn.poet.train import train_live

    with training.turn(tr("po.train_busy")) as ours:
        if not ours:
            return
        bar = st.progress(0.0)
        progress = training.throttled(lambda step, total, loss: bar.progress(
            step / total, text=tr_plain("po.train_progress", step=step, total=total, loss=f"{loss:.3f}")))
        try:
            run = train_live(epochs, seed, progress)
        except InputError as error:
            show_error(error, kept=False)
            return
    st.session_state[OWN] = run
    st.rerun()


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

def loss_table() -> pd.DataFrame:
    """The training loss of every step and the held-out loss at each checkpoint, from ``record.json``."""
    record = poet().record or {}
    curve = record.get("loss_curve", [])
    frame = pd.DataFrame({tr_plain("po.loss_step"): range(1, len(curve) + 1), tr_plain("po.loss_train"): curve})
    held = {int(c["step"]): float(c["val_loss_all"]) for c in record.get("checkpoints", []) if "val_loss_all" in c}
    frame[tr_plain("po.loss_held_out")] = [held.get(i) for i in frame[tr_plain("po.loss_step")]]
    return frame


def part_write() -> Poem | None:
    poem = written(inputs())
    if poem is not None:
        show_poem(poem)
        checks(poem)
    return poem


def poem_line(poem: Poem) -> None:
    """The poem, one line, at the top of a part that does not show the settings."""
    st.caption(tr("po.poem_shown", text=poem.text))


def part_step() -> Poem | None:
    poem = written(request())
    if poem is not None:
        poem_line(poem)
        show_step(poem)
    return poem


def part_learned() -> Poem | None:
    poem = written(request())
    if poem is not None:
        poem_line(poem)
    learning(request())
    csv_button(loss_table, "poet-loss", key="po_csv_loss")
    return poem


def part_words() -> None:
    explanations()


def export(poem: Poem) -> None:
    """One ZIP of every table at the character and checkpoint chosen, however few parts were opened, with
    settings.txt (the link, the poem, its settings)."""
    k = step_now(poem)
    token = character_steps(poem)[k].token
    address, _, short = links.share_link("poet")
    tables = {**step_tables(poem, k), "loss": loss_table}
    made = {"settings.txt": settings_text(address, short, poem, step=k, token=token,
                                          checkpoint=int(settings.value("po_ckpt")), lang=current_lang())}
    st.download_button(tr("po.download_zip"), partial(zip_tables, {f"step{k + 1}_{name}" if name != "loss" else name:
                                                                    table for name, table in tables.items()}, made),
                       file_name="selfattn-poet.zip", mime="application/zip", key="po_zip", on_click="ignore",
                       icon=":material/folder_zip:", type="primary")


def draw_page() -> None:
    """The page below its title: the parts (only the open one runs), the ZIP and the link. Run by
    :meth:`ui.play.Player.run`: a fragment rerun once a second while the generation plays."""
    model = poet()
    st.caption(tr("po.intro", params=f"{model.parameters:,}", layers=model.config.layers, d=model.config.d_model,
                  heads=model.config.num_heads, poems=f"{(model.record or {}).get('poems', {}).get('train', 0):,}"))
    shown = {}  # the poem the open part wrote, for the ZIP (the words part writes none)

    def keeping(body):
        return lambda: shown.update(poem=body())

    bodies = {"write": keeping(part_write), "step": keeping(part_step), "learned": keeping(part_learned),
              "words": keeping(part_words)}
    assert tuple(bodies) == PARTS
    if parts.current("po_part", PARTS) != "step":
        PLAYER.stop()  # the generation plays only while its part is open
    parts.show("poet", "po_part", "po", bodies)
    poem = shown.get("poem") or last_poem()
    if poem is not None:
        export(poem)
    links.publish("poet")
