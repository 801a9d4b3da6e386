"""A seeded random walk across the pages and their links (issue 14): Home, page changes, language
switches, and hostile links opened in fresh sessions.

A hostile link carries each setting of a page's table (``ui.state.fields``) at, beyond or far
from its limits, garbage of every kind, the Playground's tables and diffs mangled, unknown and
absurd parameter names. It must open without a traceback, say in the chosen language what it
did not use, show a result or a message, and the page's own link must then open cleanly again
and write the same link. Settings survive leaving a page and coming back.
"""

from __future__ import annotations

import random

import pytest

from selfattn.display import share
from selfattn.display.grid import MAX_DIM, MAX_TOKENS
from selfattn.i18n import LANGS, t
from support import apptest
from tests import fuzz
from selfattn.seq2seq.link import TABLE_PARAMS as S2S_TABLES
from selfattn.playground.link import CELL_PARAMS
from ui import state as settings

PAGES = ("home", "playground", "embeddings", "heads", "block", "seq2seq", "efficient", "poet")
TITLES = {"home": "home.title", "playground": "pg.title", "embeddings": "emb.title", "heads": "hd.title",
          "block": "tb.title", "seq2seq": "s2s.title", "efficient": "ef.title",
          "poet": "po.title"}
JUNK = ("", " ", "abc", "1e400", "nan", "-0", "٣", "１２", "9" * 30, "0x10", "1.5", "true", "../../etc/passwd", "~",
        "!", "!z", "_", "~~", "\x00", "🙂", "=1+1", "%00", "x" * 50_000, "早" * 600)


def hostile_value(codec, rng: random.Random) -> str:
    """A parameter for ``codec``: within its limits, at them, beyond them, or garbage."""
    if rng.random() < 0.3:
        return rng.choice(JUNK)
    if isinstance(codec, share.Int):
        return str(rng.choice([codec.lo, codec.hi, codec.lo - 1, codec.hi + 1, rng.randint(codec.lo, codec.hi),
                               -(2**63), 2**63, 10**12]))
    if isinstance(codec, share.Bool):
        return rng.choice(["0", "1", "2", "yes"])
    if isinstance(codec, share.Choice):
        option = str(rng.choice(codec.options))
        return rng.choice([option, option, option.upper(), option + " ", f"{option}~{option}"])
    if isinstance(codec, share.Choices):
        options = [str(o) for o in codec.options]
        picked = rng.sample(options, rng.randint(0, len(options))) + rng.choice([[], [], [options[0]], ["nope"]])
        return "~".join(picked)
    if isinstance(codec, share.Text) or hasattr(codec, "max_chars"):  # Text, or a page's own text codec
        return rng.choice([*fuzz.HOSTILE_TEXT, "x" * codec.max_chars, "x" * (codec.max_chars + 1)])
    raise TypeError(codec)


def hostile_table(rng: random.Random, rows: int, cols: int) -> str:
    cells = [*fuzz.BAD_CELLS[:12], *fuzz.GOOD_CELLS, "x" * 41, "!", "!u", "a_b", "~"]
    table = [[str(rng.choice(cells) or "") for _ in range(cols)] for _ in range(rows)]
    text = share.encode_table(table)
    return rng.choice([text, text, text[: rng.randrange(len(text) + 1)], text + "~1", text.replace("_", "!")])


def playground_extras(rng: random.Random) -> dict[str, str]:
    """The Playground's own parameters: sizes, token labels, tables in full or as diffs."""
    params = {}
    n, d = rng.randint(0, MAX_TOKENS + 2), rng.randint(0, MAX_DIM + 2)
    if rng.random() < 0.5:
        params["size"] = rng.choice([f"{n}.{d}.{rng.randint(1, MAX_DIM)}.{rng.randint(1, MAX_DIM)}", "3.4", "a.b.c.d",
                                     "999.1.1.1", "3.4.3.3", f"{n}.{d}.{d}.{d}"])
    if rng.random() < 0.4:
        labels = [rng.choice([*fuzz.HOSTILE_TEXT[:25], "Input 1", "输入 2", "y" * 49]) for _ in range(rng.randint(1, 6))]
        params["tok"] = share.encode_table([labels])
    for param in CELL_PARAMS.values():
        r = rng.random()
        if r < 0.15:
            params[param] = hostile_table(rng, rng.randint(1, 5), rng.randint(1, 5))
        elif r < 0.3:
            cells = fuzz.BAD_CELLS[:12] + fuzz.GOOD_CELLS
            items = [f"{rng.randint(0, 40)}.{rng.randint(0, 20)}.{rng.choice(cells) or ''}" for _ in range(rng.randint(1, 4))]
            params[f"d{param}"] = rng.choice(["_".join(items), "1.2", "x.y.z", "999.999.1", "0.0.!q"])
    return params


def hostile_params(page: str, rng: random.Random) -> dict[str, str]:
    params = {}
    for field in (*settings.fields(page), settings.LANG):
        if rng.random() < 0.5:
            params[field.param] = hostile_value(field.codec, rng)
    if page == "playground" and rng.random() < 0.7:
        params.update(playground_extras(rng))
    if page == "seq2seq" and rng.random() < 0.7:  # its tables in full (t…) or as diffs (d…), mangled
        for param in rng.sample(S2S_TABLES, 3):
            params[param] = (hostile_table(rng, rng.randint(1, 9), rng.randint(1, 9)) if param.startswith("t")
                             else rng.choice(["0.0.9", "1.2", "x.y.z", "999.999.1", "0.0.!q", "0.0." + "9" * 60]))
    for _ in range(rng.choice([0, 0, 1, 3])):
        params[rng.choice(["nope", "x" * 1000, "`**b**`", "页面", "", "a b", "%", "seed ", "LANG"])] = rng.choice(JUNK)
    return params


class LinksWalk(fuzz.Walk):
    page, name = "home", "links"
    title_key = "home.title"
    link_page = False  # each move checks links itself

    def moves(self):
        return [(6, self.go), (2, self.switch_language), (1.2, self.hostile_link), (1, self.rerun)]

    def forget(self) -> None:
        self.current, self.left = "home", {}

    def has_result(self, at) -> bool:
        return bool(at.metric or at.dataframe or at.main.page_link or at.get("vega_lite_chart")
                    or apptest.step_maps(at))

    def verify(self) -> None:
        self.title_key = TITLES[self.current]
        super().verify()

    def check(self) -> None:
        at, lang = self.at, fuzz.lang_of(self.at)
        if self.current == "home":
            labels = [link.value for link in at.main.page_link]  # where to start (a few pages), then a card a page
            cards = [t(f"nav.{name}", lang) for name in PAGES[1:]]
            assert [label for label in labels if label in cards][-len(cards):] == cards, labels

    def go(self) -> str:
        """Leave this page for another one; what it showed comes back when the visitor returns."""
        target = self.rng.choice([p for p in PAGES if p != self.current])
        self.left[self.current] = (fuzz.lang_of(self.at), fuzz.link_query(self.at))
        self.at.switch_page(f"pages/{target}.py")
        self.at.run()
        self.current = target
        if target in self.left:
            lang, query = self.left[target]

            def same() -> None:
                if lang == fuzz.lang_of(self.at):
                    assert fuzz.link_query(self.at) == query, ("settings changed while away", query)

            self.expect.append(same)
        return f"go to {target}"

    def hostile_link(self) -> str:
        """Open a hostile link in a fresh session; then its own link; the walk goes on in it."""
        page = self.rng.choice(PAGES)
        params = hostile_params(page, self.rng)
        self.at = fuzz.open_link(page, params)
        self.current, self.left = page, {}
        self.title_key = TITLES[page]
        fuzz.check_page(self.at, self.title_key, self.has_result)
        warning = fuzz.ignored_warning(self.at)
        if warning is not None:
            assert len(warning) < 3000, "a hostile link makes an endless message"
        fuzz.check_link(self.at, page, title_key=self.title_key, exact=True, has_result=self.has_result,
                        address_bar=False)
        shown = {k: (v if len(v) <= 40 else f"{v[:37]}...({len(v)})") for k, v in params.items()}
        return f"hostile link /{page} {shown}"


@pytest.mark.parametrize("seed", fuzz.seeds(1))
def test_page_changes_language_switches_and_hostile_links_never_crash(seed, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", fuzz.NO_HUB)  # a link's model that is not on the machine is looked up nowhere
    LinksWalk(seed).run()


def test_hostile_values_cover_every_setting_of_every_page():
    """Every field of every table gets a value from the generator (a new codec needs a case here)."""
    rng = random.Random(0)
    for page in PAGES:
        for field in (*settings.fields(page), settings.LANG):
            assert isinstance(hostile_value(field.codec, rng), str), field
    assert set(LANGS) == {"en", "zh"}
