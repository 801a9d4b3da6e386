"""The Playground's words that follow its state: each step's equation, what a preset sets, the
tutorial's rounding, and the ZIP's settings.txt. Every function takes the language it writes in."""

from __future__ import annotations

from selfattn.core.presets import Example, preset, tutorial_by_hand
from selfattn.i18n import LANGS, Markdown, t, t_plain
from selfattn.playground.view import View

TOGGLES = ("pg_scale", "pg_causal", "pg_bias")  # the three switches, by session-state key


def formulas(scale: bool, causal: bool, bias: bool, positions: bool, lang: str) -> dict[str, Markdown]:
    """Each step's equation (KaTeX) as the options stand: with biases, √d_k, the mask and the
    position vectors (X + PE) only when on.

    Returns:
        The maps' titles "q", "k", "v" and the equations of "step3", "step5", "step8".
    """
    b = {name: f" + b_{name}" if bias else "" for name in "qkv"}
    x = "(X + PE)" if positions else "X"
    scores = r"QK^\top" + (r"/\sqrt{d_k}" if scale else "") + (" + M" if causal else "")
    s = "s'" if scale or causal else "s"
    mask = t("pg.mask_where", lang) if causal else ""  # in words, outside the maths: "for j > i" / "当 j > i 时"
    return {
        **{name: Markdown(f"${name.upper()} = {x}W_{name}{b[name]}$") for name in "qkv"},  # the maps' titles
        "step3": Markdown(f"$Q = {x}W_q{b['q']},\\; K = {x}W_k{b['k']},\\; V = {x}W_v{b['v']}$"),
        "step5": Markdown(f"$w_{{ij}} = e^{{{s}_{{ij}}}} / \\sum_{{j'}} e^{{{s}_{{ij'}}}}$"),
        "step8": Markdown(f"$\\mathrm{{outputs}} = \\mathrm{{softmax}}({scores})\\,V${mask}"),
    }


def preset_toggles(example: Example) -> dict[str, bool]:
    """The toggles a preset sets when it loads: its own scaling, no mask, no biases."""
    return {"pg_scale": bool(example.scale), "pg_causal": False, "pg_bias": False}


def toggle_words(toggles: dict[str, bool], lang: str) -> Markdown:
    """Toggles as words: "“Scale by √d_k” on, “Causal mask” off"."""
    return Markdown(t("common.list_sep", lang).join(
        t("pg.toggle_on" if on else "pg.toggle_off", lang, name=t(f"pg.opt_{key[3:]}", lang)) for key, on in toggles.items()))


def vec_text(values, digits: int) -> str:
    """A vector written with ``digits`` decimals, as the tutorial writes its vectors: "[2.0, 7.0, 1.5]"."""
    return "[" + ", ".join(f"{float(v):.{digits}f}" for v in values) + "]"


def preset_caption(name: str, edited: bool, toggles: dict[str, bool], lang: str) -> Markdown:
    """What a preset is, what loading it sets (from the preset itself, so it cannot drift), and
    whether what is on screen is still the preset: its tables (``edited``) and its ``toggles``."""
    numbers = {"output": vec_text(tutorial_by_hand().output, 4)} if name == "tutorial" else {}
    sets = preset_toggles(preset(name))
    parts = [t(f"pg.preset_{name}_help", lang, **numbers), t("pg.preset_sets", lang, changes=toggle_words(sets, lang))]
    if edited:
        parts.append(t("pg.preset_edited", lang, name=t_plain(f"pg.preset_{name}", lang)))
    changed = {key: toggles[key] for key, on in sets.items() if toggles[key] != on}
    if changed:
        parts.append(t("pg.preset_options_changed", lang, changes=toggle_words(changed, lang)))
    return Markdown(" ".join(parts))


def tutorial_note(lang: str) -> Markdown:
    """Why the tutorial's text prints output 1 as [2.0, 7.0, 1.5] and the page shows [1.9366, ...]."""
    hand = tutorial_by_hand()
    return t("pg.tutorial_rounding", lang, scores=vec_text(hand.scores, 0), rough_w=vec_text(hand.rough_weights, 1),
             exact_w=vec_text(hand.weights, 4), rough_out=vec_text(hand.rough_output, 1),
             exact_out=vec_text(hand.output, 4))


def settings_text(link: str, link_short: bool, shown: View, *, bias: bool, edited: bool, order: str | None,
                  lang: str) -> str:
    """The ZIP's settings.txt: the view's link and every choice that made its numbers, one line each.

    Args:
        link, link_short: the view's link, and whether its tables were left out of it (too long).
        shown: the page's state (preset, seed, sizes, switches, positions).
        bias: whether the numbers were computed with the biases (the last good result's).
        edited: whether the tables differ from the preset's.
        order: the shuffled run's order ("3 1 2"), or None when there is none.
    """
    def line(key: str, **params) -> str:
        return t_plain(key, lang, **params)

    def option(key: str, on: bool) -> str:
        return line("common.settings_line", name=line(f"pg.opt_{key}"),
                    value=line("common.settings_on" if on else "common.settings_off"))

    sizes = shown.tables.sizes
    lines = [line("pg.settings_title"), "", line("common.settings_link", link=link)]
    if link_short:
        lines.append(line("common.settings_link_short"))
    lines += [line("pg.settings_preset", name=line(f"pg.preset_{shown.preset}")),
              line("pg.settings_tables_edited" if edited else "pg.settings_tables_preset"),
              line("pg.settings_seed", seed=shown.seed),
              line("pg.settings_sizes", n=sizes.n, d_in=sizes.d_in, d_k=sizes.d_k, d_v=sizes.d_v),
              option("scale", shown.scale), option("causal", shown.causal), option("bias", bias),
              line("pg.settings_positions_seed" if shown.pos == "learned" else "pg.settings_positions",
                   kind=line(f"pg.pos_kind_{shown.pos}"), seed=shown.pos_seed),
              line("pg.settings_order", order=order) if order else line("pg.settings_order_none"),
              line("common.settings_lang", language=LANGS[lang])]
    return "\n".join(lines) + "\n"
