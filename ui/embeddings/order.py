"""Sentence embeddings: "same words, another order" (狗咬人 / 人咬狗).

Two sentences made of the same words or characters, each as vectors, each through Softmax(XXᵀ/√d)X as
in part 1 of the page. The two are matched by the text the visitor typed (never by what a model reads:
MiniLM reads 狗 and 咬 both as [UNK]). Static vectors (one per token, wherever it stands) give the first
sentence's attention with its rows and columns permuted; a model's contextual vectors carry positions
and do not. Vectors that read two different texts as one token cannot show it for that pair: the page
says so, and shows it with vectors that can. One call from ``pages/embeddings.py``: :func:`section`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

import streamlit as st

from selfattn.core.attention import raw_self_attention, unit_rows
from selfattn.core.positions import ReorderTrace, TextMatch, match_text, reorder_check
from selfattn.display.numbers import difference_text
from selfattn.errors import InputError
from selfattn.hosting import is_hosted
from selfattn.i18n import Markdown, one_line
from selfattn.text import models
from selfattn.text.embedding_text import MAX_CHARS, has_cjk
from selfattn.text.embeddings import KINDS, TokenEmbeddings, get_source
from ui import models as cached
from ui import map_sizes as fit
from ui import state as settings
from ui.widgets import show_error, tr

PAIRS = [("狗咬人", "人咬狗"), ("dog bites man", "man bites dog"), ("我爱你", "你爱我")]


def max_tokens() -> int:
    """Tokens a sentence may have here: four n × n maps and two model runs, for a sentence, not an essay."""
    return 16 if is_hosted() else 32


def labels(emb: TokenEmbeddings) -> list[str]:
    """Token labels numbered by position (repeated tokens stay apart), one line each."""
    return [f"{i + 1}·{one_line(tok)}" for i, tok in enumerate(emb.tokens)]


def vectors_name(emb: TokenEmbeddings) -> str:
    """The vectors' name as the page writes it: jieba's character vectors, or the model's name."""
    label = get_source(emb.source).vectors_label
    return tr(label) if label else models.display_name(emb.model)


def _source_for(kind: str, source: str, text: str) -> str:
    """The page's source when it offers ``kind`` for ``text``, else MiniLM (the installed model)."""
    return source if kind in get_source(source).resolve(text).kinds else "minilm"


def _embed(text: str, source: str, kind: str, spec: str | None) -> TokenEmbeddings:
    top = max_tokens()
    emb = cached.embeddings(text, source, kind, None, spec, top)
    if emb.truncated:
        raise InputError("order_too_many_tokens", f"This view takes sentences of at most {top} tokens.", top=top)
    return emb


@dataclass(frozen=True)
class Compared:
    """One kind of vectors over the two sentences: matched by their text, and their attention compared."""

    first: TokenEmbeddings
    second: TokenEmbeddings
    match: TextMatch  # the order by text, and the texts these vectors cannot tell apart
    check: ReorderTrace | None  # None when the vectors cannot tell apart texts of the sentences (match.merged)
    instead_of: Compared | None = None  # the page's vectors that could not show it, when these stand in for them


def _compare(first: str, second: str, source: str, kind: str, spec: str | None, scale: bool,
             unit: bool) -> Compared:
    pair = [_embed(text, source, kind, spec) for text in (first, second)]
    match = match_text(pair[0].pieces, pair[1].pieces, pair[0].read, pair[1].read)
    if not match.readable:  # no order to check: the vectors do not tell the sentences' tokens apart
        return Compared(*pair, match, None)
    xa, xb = ((unit_rows(e.vectors) if unit else e.vectors) for e in pair)
    return Compared(*pair, match, reorder_check(xa, xb, match.order, partial(raw_self_attention, scale=scale)))


def _merges_chinese(compared: Compared) -> bool:
    return any(has_cjk(text) for texts in compared.match.merged.values() for text in texts)


def compute(first: str, second: str, source: str, spec: str | None, scale: bool, unit: bool) -> dict[str, Compared]:
    """For each kind of vectors, the two sentences compared. InputError says why not.

    Static vectors that cannot tell Chinese characters apart (MiniLM's [UNK]) give way to the character
    vectors, which can; ``instead_of`` keeps what they could not.
    """
    results = {}
    for kind in KINDS:  # static, then contextual
        source_here = _source_for(kind, source, first)
        compared = _compare(first, second, source_here, kind, spec, scale, unit)
        if kind == "static" and source_here != "charvec" and _merges_chinese(compared):
            stand_in = _compare(first, second, "charvec", kind, None, scale, unit)
            if stand_in.match.readable:
                compared = replace(stand_in, instead_of=compared)
        results[kind] = compared
    return results


def section(source: str, spec: str | None, scale: bool, unit: bool) -> None:
    """The whole view: two sentences, then static and contextual vectors compared.

    Args:
        source, spec: the page's embedding source and model (the view uses them where they fit); spec None
            when the page's model could not be loaded (then the installed vectors are used).
        scale, unit: part 1's switches (÷√d, unit-length rows), so the maps read like part 1's.
    """
    st.header(tr("emb.order_header"))
    st.markdown(tr("emb.order_intro"))
    settings.keep("emb_order_a")
    settings.keep("emb_order_b")
    with st.container(horizontal=True, gap="small"):  # whole pairs, wrapped onto more rows when narrow
        for a, b in PAIRS:
            st.button(f"{a} / {b}", key=f"order_pair_{a}", width="content",
                      on_click=lambda a=a, b=b: (settings.put("emb_order_a", a), settings.put("emb_order_b", b)))
    left, right = st.columns(2)
    left.text_input(tr("emb.order_first"), key="emb_order_a", max_chars=MAX_CHARS,
                    help=tr("emb.order_text_help", n=max_tokens()))
    right.text_input(tr("emb.order_second"), key="emb_order_b", max_chars=MAX_CHARS,
                     help=tr("emb.order_text_help", n=max_tokens()))
    first, second = st.session_state["emb_order_a"], st.session_state["emb_order_b"]
    if get_source(source).asks_model and not spec:  # the page has said why its model is not there
        source = "auto"
        st.caption(tr("emb.order_fallback"))
    with st.spinner(tr("emb.computing")):
        good, error = settings.last_good("emb_order_good",
                                         partial(compute, first, second, source, spec, scale, unit))
    if error is not None:
        show_error(error, kept=good is not None)
    if good is None:
        return
    static = good["static"]
    charvec_reads = static.first.source == "charvec" and static.check is not None
    offer = True  # the way to a Chinese model, once
    for kind in KINDS:
        offer = _show(kind, good[kind], charvec_reads=charvec_reads, offer=offer) and offer


def _merged(match: TextMatch) -> Markdown:
    """What a reader cannot tell apart, as the page says it: "狗 and 咬 as one and the same token, [UNK]"."""
    items = [tr("emb.order_merged_item", texts=tr("emb.order_and").join(texts), token=token)
             for token, texts in match.merged.items()]
    return Markdown(tr("emb.order_merged_sep").join(items))


def _show(kind: str, compared: Compared, *, charvec_reads: bool, offer: bool) -> bool:
    """One kind of vectors: the order by text, then the maps and what they say, or why these vectors cannot.

    Args:
        charvec_reads: the static vectors shown are the character vectors and they show it (the way to what works).
        offer: offer the way to a Chinese model here, if needed.

    Returns:
        True while the way to a Chinese model is still to be offered.
    """
    a, b, check = compared.first, compared.second, compared.check
    name = vectors_name(a)
    layer = a.layer if a.layer is not None else 0
    st.subheader(tr(f"emb.order_{kind}_title", name=name, layer=layer))
    st.caption(tr(f"emb.order_{kind}_why", name=name))
    if compared.instead_of is not None:
        st.info(tr("emb.order_instead", could_not=vectors_name(compared.instead_of.first),
                   merged=_merged(compared.instead_of.match), name=name), icon=":material/swap_horiz:")
    st.markdown(tr("emb.order_perm", order=" ".join(str(int(i) + 1) for i in compared.match.order)))
    if check is None:  # the same token for different texts: these vectors cannot show it for this pair
        st.warning(tr("emb.order_cannot", name=name, merged=_merged(compared.match)), icon=":material/help:")
        if offer and _merges_chinese(compared):
            lead = "emb.order_chinese_lead" if charvec_reads else "emb.order_chinese_lead_model"
            cached.offer_chinese_model(tr(lead, charvec=tr("emb.source_charvec")), "order_use_chinese_model")
            return False
        return offer
    if a.unknown or b.unknown:
        st.info(tr("emb.order_unknown", name=name, tokens=" ".join(dict.fromkeys(a.unknown_text + b.unknown_text))),
                icon=":material/help:")
    la, lb = labels(a), labels(b)
    slots, px = fit.side_by_side(3, len(la), la + lb, min_cell=fit.LABEL_GAP_PX)
    for slot, title, weights, lab, which in (
            (slots[0], tr("emb.order_weights", text=a.text), check.first.weights, la, "first"),
            (slots[1], tr("emb.order_moved"), check.moved_weights, lb, "first-permuted"),
            (slots[2], tr("emb.order_weights", text=b.text), check.second.weights, lb, "second")):
        with slot:
            fit.show_map(title, weights, lab, lab, key=f"order-{kind}-{which}", width=px, role="weights",
                         domain=(0.0, 1.0))
    numbers = {"w": difference_text(check.weights_diff), "o": difference_text(check.outputs_diff)}
    if check.same:
        st.success(tr("emb.order_same", **numbers), icon=":material/check_circle:")
    else:
        st.info(tr("emb.order_changed", **numbers), icon=":material/swap_horiz:")  # expected: no warning
    items = [tr("emb.order_cos_item", label=lb[r], cos=f"{c:.6f}") for r, c in enumerate(check.cosines)]
    st.caption(tr("emb.order_cosines", items=Markdown(" · ".join(items))))
    return offer
