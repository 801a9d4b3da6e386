"""The Playground's word-order sections: add positions to X, and shuffle the tokens to see what moves.

Both draw what the page's computation returned (``selfattn.playground.inputs.compute_view``, which adds the
positions to X and runs the shuffled tokens): :func:`positions_section` before step 3 (the choice, the formula,
PE and X + PE), :func:`shuffle_section` after the steps (a new order, typed or drawn, and the check written out
row by row). Both sections add their matrices to the page's ZIP. :func:`read_order` is the page's read of the
order, before it computes.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import streamlit as st

from selfattn.core.compare import largest_magnitude, shared_domain_if_spread
from selfattn.playground.view import MAX_SEED
from selfattn.core.positions import KINDS, ShuffleTrace, parse_order, positional_encoding, random_order
from selfattn.playground.inputs import Result, permutation
from selfattn.display.export import column_names, labelled
from selfattn.display.numbers import difference_text, map_text
from selfattn.errors import InputError
from selfattn.i18n import Markdown
from ui import map_sizes as fit
from ui import state as settings
from ui.widgets import choice, error_text, folded, tr, tr_plain

MAX_UNDO = 20  # orders the Undo button can go back through
LISTED = 8  # rows of the check written out before the rest go into a popover
PANEL = "pg_order_panel"  # the shuffle's folded box


def _chosen(key: str, options=None):
    """A setting of this section: kept (written back) the first time in a run, read as it is after that,
    so that nothing writes to a widget drawn since (the seed box, the choice of positions)."""
    return st.session_state[key] if key in st.session_state else settings.keep(key, options)


def chosen() -> tuple[str, int]:
    """The positions the visitor chose: their kind (one of ``KINDS``) and seed."""
    return _chosen("pg_pos", KINDS), int(_chosen("pg_pos_seed"))


def encoding(n: int, d_in: int) -> np.ndarray:
    """The position vectors the visitor chose for n tokens of width d_in (zeros for none)."""
    return positional_encoding(n, d_in, *chosen())


def positions_on() -> bool:
    """Whether position vectors are added to X (the formulas then read X + PE)."""
    return _chosen("pg_pos", KINDS) != "none"


# ── Positions ─────────────────────────────────────────────────────────────────────────

def positions_section(result: Result, tables: dict) -> None:
    """The choice of positions; when on, the formula, PE and X + PE as heatmaps (and in the ZIP).

    Args:
        result: the page's computation: its PE, and X + PE (what its trace started from).
        tables: the page's tables for the ZIP; "pe" and "x_plus_pe" are added when positions are on.
    """
    tokens = result.inputs.tokens
    st.subheader(tr("pg.pos_title"))
    st.caption(tr("pg.pos_help"))
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    with c1:
        kind = choice(st.segmented_control, tr("pg.pos_kind"), list(KINDS), "pg_pos",
                      {k: tr(f"pg.pos_kind_{k}") for k in KINDS}, help=tr("pg.pos_kind_help"))
    settings.keep("pg_pos_seed")
    if kind == "learned":
        c2.number_input(tr("pg.pos_seed"), min_value=0, max_value=MAX_SEED, step=1, key="pg_pos_seed",
                        help=tr("pg.pos_seed_help"))
    if kind == "none":
        return
    pe, x_plus_pe = result.pe, result.trace.x
    n, d_in = pe.shape
    st.markdown(tr(f"pg.pos_{kind}_formula", d=d_in))
    x_cols, p_cols = column_names("x", d_in), column_names("p", d_in)
    slots, px = fit.side_by_side(2, d_in, tokens, min_cell=fit.LABEL_GAP_PX)
    with slots[0]:
        top = largest_magnitude(pe, floor=1.0)  # sines and cosines fill [-1, 1]; learned-style ones go further
        rows = [tr_plain("pg.pos_row", i=i) for i in range(n)]  # pos 0, 1, ... as in the formula
        tables["pe"] = fit.show_map(tr("pg.pos_pe"), pe, rows, p_cols, key="pe", width=px, role="signed",
                                    domain=(-top, top), write=map_text)
    with slots[1]:
        tables["x_plus_pe"] = fit.show_map("X + PE", x_plus_pe, tokens, x_cols, key="x_plus_pe", width=px, role="values",
                                           write=map_text)
    st.info(tr("pg.pos_used"), icon=":material/add_location_alt:")


# ── Shuffling ─────────────────────────────────────────────────────────────────────────

def _order_text(order) -> str:
    return " ".join(str(int(i) + 1) for i in order)


def _set_order(text: str) -> None:
    """Make ``text`` the order, keeping the one it replaces for Undo."""
    before = st.session_state.get("pg_order", "")
    if text != before:
        undo = st.session_state.setdefault("pg_order_undo", [])
        undo.append(before)
        del undo[:-MAX_UNDO]
    settings.put("pg_order", text)


def _typed() -> None:
    """Callback of the order box: the text box already holds the new order; remember the old one."""
    undo = st.session_state.setdefault("pg_order_undo", [])
    undo.append(st.session_state.get(settings.shadow("pg_order"), ""))
    del undo[:-MAX_UNDO]
    settings.put("pg_order", st.session_state["pg_order"])


def _draw(n: int) -> None:
    """Callback: a random new order with the chosen seed."""
    _set_order(_order_text(random_order(n, int(st.session_state.get("pg_order_seed", 0) or 0))))


def _undo() -> None:
    undo = st.session_state.get("pg_order_undo") or [""]
    settings.put("pg_order", undo.pop())


def _controls(n: int) -> None:
    settings.keep("pg_order")
    settings.keep("pg_order_seed")
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    c1.text_input(tr("pg.order"), key="pg_order", max_chars=settings.field("pg_order").codec.max_chars,
                  placeholder=_order_text(range(n)), help=tr("pg.order_help", n=n), on_change=_typed)
    c2.number_input(tr("pg.order_seed"), min_value=0, max_value=MAX_SEED, step=1, key="pg_order_seed",
                    help=tr("pg.order_seed_help"), on_change=_draw, args=(n,))
    b1, b2, b3 = st.columns(3)
    b1.button(tr("pg.order_draw"), on_click=_draw, args=(n,), icon=":material/shuffle:", key="pg_order_draw",
              width="stretch", disabled=n < 2)
    b2.button(tr("pg.order_undo"), on_click=_undo, icon=":material/undo:", key="pg_order_undo_button",
              width="stretch", disabled=not st.session_state.get("pg_order_undo"))
    b3.button(tr("pg.order_reset"), on_click=_set_order, args=("",), icon=":material/restart_alt:",
              key="pg_order_reset", width="stretch", disabled=not st.session_state["pg_order"].strip())


def read_order(n: int) -> tuple[tuple[int, ...] | None, InputError | None]:
    """The order to shuffle ``n`` tokens into: the typed one, or the last good one while the typed one is bad
    (with why it is bad, said by :func:`shuffle_section`); None when neither fits ``n`` tokens.

    What is kept is the order, not its results: they are computed on the tables the page shows now.
    """
    good, error = settings.last_good("pg_order_good", lambda: parse_order(settings.value("pg_order"), n))  # kept
    # while its box is closed (its widget not drawn)
    usable = good is not None and len(good) == n  # an order for another number of tokens is no use
    return (tuple(int(i) for i in good) if usable else None), error


def shuffle_section(result: Result, order: tuple[int, ...] | None, error: InputError | None, causal: bool,
                    tables: dict) -> str | None:
    """Shuffle the tokens, in a folded box (``pg_order_panel``: closed, none of its widgets and maps is made; a link
    that names an order opens it, and it stays as the visitor leaves it): the controls, the outputs before and after,
    the permutation, and the check in words.

    Args:
        result: the page's computation, with its shuffled run (``result.shuffle``).
        order, error: :func:`read_order`'s answer (the order used, and why the typed one was not).
        causal: whether the page's mask is on (a reason the outputs may change).
        tables: the page's tables for the ZIP; the order and the shuffled run are added, the box open or not.

    Returns:
        The order the shuffled run used, written "3 1 2", or None when there is no shuffled run.
    """
    tokens = result.inputs.tokens
    n = len(tokens)
    check = result.shuffle if order is not None and list(order) != list(range(n)) and result.shuffle_error is None \
        else None  # None too for a result kept from before a bad edit (computed for another order)
    if check is not None:
        _zip_tables(tokens, check, tables)
    box = folded(tr("pg.order_title"), PANEL, icon=":material/shuffle:",
                 opened=bool(settings.value("pg_order").strip()))  # a link naming an order opens it
    if not box.open:
        return None if check is None else _order_text(check.order)
    with box:
        st.caption(tr("pg.order_intro"))
        _controls(n)
        if error is not None:
            message = error_text(error)
            if order is not None and list(order) != list(range(n)):
                message += "\n\n" + tr("pg.order_kept", order=_order_text(order))
            st.error(message, icon=":material/error:")
        if order is None:
            return None
        if list(order) == list(range(n)):
            st.caption(tr("pg.order_same"))
            return None
        if result.shuffle_error is not None:  # the shuffled numbers overflow where the page's did not: said, not drawn
            st.error(error_text(result.shuffle_error), icon=":material/error:")
            return None
        if check is None:
            return None
        _show(tokens, check, causal)
        return _order_text(check.order)


def _zip_tables(tokens: list[str], check: ShuffleTrace, tables: dict) -> None:
    """The shuffle's tables for the page's ZIP (as its maps write them): P, the shuffled X and outputs."""
    moved = [tokens[i] for i in check.order]
    tables["order"] = partial(labelled, np.asarray(permutation(check.order), dtype=float), moved, tokens)
    tables["shuffled_outputs"] = partial(labelled, np.asarray(check.after.outputs, dtype=float), moved,
                                         column_names("v", check.after.outputs.shape[1]))
    tables["shuffled_x"] = partial(labelled, check.after.x, moved, column_names("x", check.after.x.shape[1]))


def _show(tokens: list[str], check: ShuffleTrace, causal: bool) -> None:
    order, n = check.order, len(check.order)
    moved = [tokens[i] for i in order]
    v_cols = column_names("v", check.before.outputs.shape[1])
    perm = permutation(order)  # P: row r has its 1 in the column of the token it now holds
    st.markdown(tr("pg.order_new", order=_order_text(order)))
    has_pe = bool(np.any(check.pe))
    st.markdown(tr("pg.order_formula_pe" if has_pe else "pg.order_formula"))
    fit.show_map(tr("pg.order_p"), perm, moved, tokens, key="order", width=fit.PAGE_PX, role="weights",
                 domain=(0.0, 1.0), caption=tr("pg.order_p_help"), write=map_text)
    slots, px = fit.side_by_side(2, len(v_cols), moved, min_cell=fit.LABEL_GAP_PX)
    domain = shared_domain_if_spread(check.before.outputs, check.after.outputs)  # one colour scale: colours compare
    with slots[0]:
        fit.show_map(tr("pg.order_before"), check.before.outputs, tokens, v_cols, key="outputs_before", width=px,
                     role="outputs", domain=domain, write=map_text)  # as step 8 writes the same numbers
    with slots[1]:
        fit.show_map(tr("pg.order_after"), check.after.outputs, moved, v_cols, key="shuffled_outputs", width=px,
                     role="outputs", domain=domain, write=map_text)
    if check.equivariant:
        st.success(tr("pg.order_verdict_same", diff=difference_text(check.max_diff), tol=difference_text(check.tolerance)),
                   icon=":material/check_circle:")
    else:
        reasons = [tr(k) for k, on in (("pg.order_why_pe", has_pe), ("pg.order_why_causal", causal)) if on]
        why = Markdown("".join(f"\n- {reason}" for reason in reasons))
        st.warning(tr("pg.order_verdict_changed", diff=difference_text(check.max_diff), why=why), icon=":material/warning:")
    by_old = []
    for i in range(n):  # in the old order: "Input 1 ... moved to row 3" first
        r = int(check.where[i])
        diff = float(check.row_diff[r])
        key = "pg.order_row_same" if diff <= check.tolerance else "pg.order_row_changed"
        by_old.append("- " + tr(key, label=tokens[i], old=i + 1, new=r + 1, diff=difference_text(diff)))
    st.markdown("\n".join(by_old[:LISTED]))
    if n > LISTED:
        with st.popover(tr("pg.order_more", n=n - LISTED), icon=":material/unfold_more:"):  # in the folded box: no
            # expander (Streamlit nests none)
            st.markdown("\n".join(by_old[LISTED:]))
