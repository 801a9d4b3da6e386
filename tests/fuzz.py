"""Seeded random walks of visitor actions through AppTest, and the checks after every action (issue 14).

Each page's fuzz test (``tests/test_fuzz_*.py``) lists what a visitor can do there (:class:`Walk`
offers the moves every page shares: any toggle, number box, chooser, slider, text box or button
in the main area, with values at and beyond their ends and hostile text, and a language switch).
After every action :func:`check_page` asserts what must always hold:

- no exception element and no traceback text anywhere on the page;
- every message of ours is in the chosen language (Chinese words in the Chinese page, no
  untranslated English sentence of the catalog, no raw internal code such as ``not_allowed``);
- the page shows a result or a message;

and every few actions the link in the sidebar is opened in a fresh session, which must open
cleanly, name nothing as ignored, and write the same link again. The page tests add their own
checks (the last good result stays, nothing typed is lost).

Environment:
    SELFATTN_FUZZ_ACTIONS: actions per page and seed (default 60, the fast tier; tests/run.sh, the whole
        suite, walks 300; e.g. 3000 for a nightly run).
    SELFATTN_FUZZ_SEED: comma-separated seeds (default: each test's own, printed on failure).
    SELFATTN_FUZZ_RESTART: actions between fresh sessions (default: each walk's own, 50-100).
    SELFATTN_FUZZ_LOG: a folder where each walk writes its actions, failing or not.

A failure names the seed, the action and every action before it, so it replays exactly.
"""

from __future__ import annotations

import os
import random
import re
import time
from typing import Callable
from urllib.parse import parse_qsl, urlencode

from streamlit.testing.v1 import AppTest

from selfattn.i18n import CATALOG, LANGS, t
from support.apptest import APP, open_link, sidebar_link
from ui import state as settings

ACTIONS = int(os.environ.get("SELFATTN_FUZZ_ACTIONS", "60"))
RESTART_EVERY = int(os.environ.get("SELFATTN_FUZZ_RESTART", "0"))  # 0: each walk's own
LINK_EVERY = 50  # actions between two re-openings of the page's link
NO_HUB = "http://127.0.0.1:9"  # HF_ENDPOINT for the walks: nothing listens there, so no model is downloaded


def seeds(*default: int) -> list[int]:
    """The seeds to walk: SELFATTN_FUZZ_SEED when set, else ``default``."""
    text = os.environ.get("SELFATTN_FUZZ_SEED", "")
    return [int(s) for s in text.split(",") if s.strip()] or list(default)


# ── What a hostile visitor types ─────────────────────────────────────────────────────────

HOSTILE_TEXT = (
    "", " ", "   \t  ", "。。。", "！？…", "🙂", "🙂🤖👩‍👩‍👧‍👦", "a" * 3000, "早" * 3000, "🙂" * 300,
    "\x00\x01\x07\x1b[31mred\x7f", "two\nlines\r\nhere", "tab\there",
    "mixed 中文 English русский العربية עברית हिन्दी", "\u200b", "zero\u200bwidth\u200d\ufeff", "\u202eevil",
    "../../etc/passwd", "/etc/passwd", "~/.ssh/id_rsa", "C:\\Windows\\system32", "=1+1",
    '=HYPERLINK("http://example.com","x")', "+cmd|' /C calc'!A0", "-1+1", "@SUM(A1:A9)",
    "<script>alert(1)</script>", "**bold** _it_ `code` $x^2$ [a](b)", "{0} {name} %s %(x)d", "\\", "'", '"',
    "null", "None", "NaN", "ｆｕｌｌ　ｗｉｄｔｈ", "x" * 201, "a_b~c!d", "[CLS] [SEP] [UNK] [MASK]",
)
NICE_TEXT = ("早上好", "Good morning", "我爱自然语言处理", "The cat sat on the mat", "今天天气很好", "hello, world!")
BAD_CELLS = ("abc", "1e400", "-1e400", "nan", "NaN", "inf", "-inf", "1,5", "=1+1", "1" * 400, "", " ", None,
             "0x1p3", "1e", ".", "--1", "½", "+", "1 2", "1.2.3", "\u200b1", "🙂", "../../etc/passwd")
GOOD_CELLS = ("0", "1", "-1", "0.5", "1e-3", "-2.25", "１２", "１．５", "−3", " 4 ", "1e300", "-1e300", "5e-324",
              "1e10", "3.141592653589793", "1_0", "0.1", "٣")


def hostile_text(rng: random.Random) -> str:
    return rng.choice(HOSTILE_TEXT if rng.random() < 0.7 else NICE_TEXT)


# ── What the page shows ──────────────────────────────────────────────────────────────────

TEXT_TYPES = {"markdown", "caption", "code", "error", "warning", "info", "success", "exception", "text", "title",
              "header", "subheader", "toast", "latex", "json", "help"}
ALERTS = ("error", "warning", "info", "success")
TRACEBACK = re.compile(r"Traceback \(most recent call last\)|File \"[^\"]*\", line \d+|"
                       r"\b\w*(Error|Exception|Warning): |StreamlitAPIException")
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def nodes(block):
    """Every element and block under ``block``, depth first."""
    for child in getattr(block, "children", {}).values():
        yield child
        yield from nodes(child)


def everything(at: AppTest):
    yield from nodes(at.main)
    yield from nodes(at.sidebar)


def shown_texts(at: AppTest) -> list[tuple[str, str]]:
    """(type, text) of every text element on the page, sidebar included."""
    out = []
    for node in everything(at):
        kind = getattr(node, "type", "")
        if kind in TEXT_TYPES:
            out.append((kind, str(node.value)))
        elif kind == "metric":
            out.append((kind, f"{node.label} {node.value}"))
        elif kind in ("expander", "status"):
            out.append((kind, node.label))
    return out


def alerts(block) -> list[tuple[str, str]]:
    """(type, text) of every error, warning, info and success message under ``block``."""
    return [(node.type, node.value) for node in nodes(block) if getattr(node, "type", "") in ALERTS]


def _fragments(lang: str, other: str) -> list[str]:
    """Long fixed pieces of the catalog's ``lang`` texts that its ``other`` texts do not share."""
    out = set()
    for entry in CATALOG.values():
        mine, theirs = entry.get(lang, ""), entry.get(other, "")
        for piece in re.split(r"\{[^}]*\}|[`*\n]", mine):
            piece = piece.strip(" .,:;()“”\"'")
            long_enough = len(re.findall(r"[A-Za-z]+", piece)) >= 4 if lang == "en" else len(CJK.findall(piece)) >= 5
            if long_enough and piece not in theirs:
                out.add(piece)
    return sorted(out)


ENGLISH_ONLY = _fragments("en", "zh")  # an English sentence of ours, which a Chinese page must not show
CHINESE_ONLY = _fragments("zh", "en")


def _codes() -> re.Pattern:
    """Internal names a message must never show (error codes and their reasons), but not words the
    catalog itself uses (field names such as d_model)."""
    from selfattn.bench import results as bench_results

    names = set(bench_results._REASONS)
    for key in CATALOG:
        parts = key.split(".")
        if parts[0] == "err":
            names.update(parts[1:])
        if parts[0] == "share" and parts[1].startswith("why_"):
            names.add(parts[1][4:])
    used = " ".join(text for entry in CATALOG.values() for text in entry.values())
    names = {n for n in names if "_" in n}
    # one pass over the catalog's words, not a search a name (169 searches: 0.7 CPU-s of every fuzz worker's start)
    names -= set(re.findall(r"(?<!\w)(" + "|".join(sorted(map(re.escape, names), key=len, reverse=True)) + r")(?!\w)",
                            used))
    return re.compile(r"(?<![\w.])(" + "|".join(sorted(map(re.escape, names), key=len, reverse=True)) + r")(?![\w])"
                      r"|(?<![\w.])(err|pg|hd|emb|share|common|nav|chart|home)\.[a-z_]{3,}")


RAW_CODE = _codes()


def lang_of(at: AppTest) -> str:
    # get, not "in": AppTest answers "in" from a copy of the whole session state, every component's state presented
    # (a third of a fuzz walk's time went there, asked once per editor an action)
    lang = at.session_state.get("lang", "en")
    return lang if lang in LANGS else "en"


def kept_note(lang: str) -> str:
    return t("common.kept_last_good", lang)


def errors(at: AppTest) -> list[str]:
    """The error and warning messages in the main area."""
    return [text for kind, text in alerts(at.main) if kind in ("error", "warning")]


def map_cells(at: AppTest) -> dict:
    """Every step map's cells, by key."""
    from support.apptest import step_maps

    return {key: data["cells"] for key, data in step_maps(at).items()}


def link_params(at: AppTest) -> dict[str, str]:
    """The parameters of the link the sidebar offers."""
    from urllib.parse import parse_qsl

    return dict(parse_qsl(link_query(at), keep_blank_values=True))


def check_page(at: AppTest, title_key: str | None = None, has_result: Callable[[AppTest], bool] | None = None) -> None:
    """What must hold on every page after every action (see the module's docstring)."""
    assert not at.exception, "exception on the page: " + "\n".join(e.value for e in at.exception)
    texts = shown_texts(at)
    for kind, text in texts:
        assert not TRACEBACK.search(text), f"traceback-like text in {kind}: {text[:500]!r}"
    lang = lang_of(at)
    if title_key is not None:
        assert at.title and at.title[0].value == t(title_key, lang), (lang, [x.value for x in at.title])
    for kind, text in alerts(at.main) + alerts(at.sidebar):
        found = RAW_CODE.search(text)
        assert not found, f"internal name {found.group(0)!r} in a {kind}: {text[:300]!r}"
        if lang == "zh":
            assert CJK.search(text), f"a {kind} without Chinese on the Chinese page: {text[:300]!r}"
            english = next((p for p in ENGLISH_ONLY if p in text), None)
            assert english is None, f"English {english!r} in a {kind} on the Chinese page: {text[:300]!r}"
        else:
            chinese = next((p for p in CHINESE_ONLY if p in text), None)
            assert chinese is None, f"Chinese {chinese!r} in a {kind} on the English page: {text[:300]!r}"
    if has_result is not None:
        # a part that is empty until a switch is on says so (the block page's stack with one layer, its batch off)
        assert has_result(at) or at.error or at.warning or at.info, "neither a result nor a message on the page"


def weights_made_only_while_open(at: AppTest, key: str, closed: set[str], opened: set[str],
                                 edit: Callable[[AppTest], None], param: str, value: str) -> dict:
    """A page of typed tables whose weights' expander ``key`` runs its body only while open: closed, the editors
    ``closed`` alone are made; a click opens it and ``opened`` are; ``edit(at)`` types into one of them (the link
    then says ``param`` = ``value``); closed again, those editors go and the maps and the link stay; opened again,
    they are made. Returns the maps after the edit."""
    from support.apptest import click_expander, editors

    def click(opening: bool) -> None:
        click_expander(at, key, opening)
        assert not at.exception, [e.value for e in at.exception]
        assert set(editors(at)) == (opened if opening else closed), sorted(editors(at))

    assert set(editors(at)) == closed, sorted(editors(at))  # the expander's body does not run
    click(True)  # the weights one click away
    before = map_cells(at)
    edit(at)
    edited = map_cells(at)
    assert edited != before and link_params(at)[param] == value
    for opening in (False, True):  # the edit outlives closing and opening again
        click(opening)
        assert map_cells(at) == edited and link_params(at)[param] == value
    return edited


# ── Links ────────────────────────────────────────────────────────────────────────────────

def link_query(at: AppTest) -> str:
    """The query of the link the sidebar offers to copy ("" for a bare link)."""
    link = sidebar_link(at)
    assert link, "no link in the sidebar"
    return link.split("?", 1)[1] if "?" in link else ""


def settings_in_link(at: AppTest) -> dict[str, str]:
    """The link's settings but the language (and the Playground's token labels, whose tutorial
    names "Input 1" / "输入 1" follow the language)."""
    params = dict(parse_qsl(link_query(at), keep_blank_values=True))
    return {k: v for k, v in params.items() if k not in ("lang", "tok")}




def ignored_warning(at: AppTest) -> str | None:
    """The message naming the link's parameters that were not used, if the page shows one."""
    start = t("share.ignored", lang_of(at))
    return next((text for _, text in alerts(at.main) if text.startswith(start)), None)


def too_long_warning(at: AppTest) -> bool:
    start = t("share.too_long", lang_of(at), n=0).split("0")[0]
    return any(text.startswith(start) for _, text in alerts(at.sidebar))


def check_link(at: AppTest, page: str, *, title_key: str | None, exact: bool,
               has_result: Callable[[AppTest], bool] | None = None, address_bar: bool = True) -> AppTest:
    """The page's link is what the address bar holds, and opens cleanly in a fresh session.

    Args:
        address_bar: compare with the address bar (not on a session's first run, which leaves
            the link it was opened with in place).
        exact: nothing on the page is beyond what a link may carry (text longer than its box
            allows, control characters): the fresh page then names nothing as ignored and
            writes the very same link.
    """
    query = link_query(at)
    written = dict(at.query_params)
    if written and address_bar:
        assert urlencode(written) == query, ("the address bar and the link differ", written, query)
    fresh = open_link(page, dict(parse_qsl(query, keep_blank_values=True)))
    check_page(fresh, title_key, has_result)
    if exact and not too_long_warning(at):
        assert ignored_warning(fresh) is None, ("the page's own link was refused", query, ignored_warning(fresh))
        assert link_query(fresh) == query, ("the link changed on reopening", query, link_query(fresh))
    return fresh


# ── The walk ─────────────────────────────────────────────────────────────────────────────

class Walk:
    """One seeded random walk over a page, with the log that replays it.

    A page test subclasses it: ``moves`` lists (weight, method) pairs, ``check`` adds the page's
    own checks, and ``remember`` notes what the next action's checks compare with.
    """

    page = "home"
    name = "home"  # tests/test_fuzz_<name>.py
    title_key: str | None = "home.title"
    link_page = True  # the link is re-opened every LINK_EVERY actions
    restart_every = 100  # actions between fresh sessions (SELFATTN_FUZZ_RESTART overrides it)

    def __init__(self, seed: int, actions: int = ACTIONS):
        self.seed, self.actions = seed, actions
        self.rng = random.Random(f"{self.name}:{seed}")
        self.log: list[str] = []
        self.at: AppTest | None = None
        self.exact = True  # nothing beyond a link's limits was typed in this session
        self.expect: list[Callable[[], None]] = []  # checks of the action just done
        self.restart_every = RESTART_EVERY or self.restart_every

    # subclasses
    def moves(self) -> list[tuple[float, Callable[[], str]]]:
        return [(1.0, self.rerun)]

    def remember(self) -> None:
        """Note what the next action's checks compare with (the result on the page now)."""

    def forget(self) -> None:
        """A fresh session: nothing to compare with yet."""

    def check(self) -> None:
        """The page's own checks after an action."""

    def has_result(self, at: AppTest) -> bool:
        return True

    def moving(self) -> tuple[str, ...]:
        """The link's parameters that move by themselves from one run to the next (a generation that plays moves
        its step with the clock): a language switch keeps every other setting."""
        return ()

    # running
    def start(self) -> None:
        lang = self.rng.choice(list(LANGS))
        self.log.append(f"-- fresh session, {lang}")
        at = AppTest.from_file(APP, default_timeout=120)
        at.session_state["lang"] = lang
        at.run()
        at.switch_page(f"pages/{self.page}.py")
        at.run()
        self.at, self.exact = at, True
        self.forget()
        self.verify()

    def verify(self) -> None:
        check_page(self.at, self.title_key, self.has_result)
        for expectation in self.expect:
            expectation()
        self.expect = []
        self.check()
        self.remember()

    def run(self) -> None:
        started = time.perf_counter()
        step = "opening the page"
        try:
            self.start()
            moves = self.moves()
            weights = [w for w, _ in moves]
            for i in range(self.actions):
                if i and i % self.restart_every == 0:
                    step = "a fresh session"
                    self.start()
                move = self.rng.choices([m for _, m in moves], weights)[0]
                step = f"#{i + 1} {move.__name__}"
                begun = time.perf_counter()
                line = len(self.log)
                self.log.append(f"{i + 1:5d} {move.__name__} (failed here)")
                self.log[line] = f"{i + 1:5d} {move()}"
                self.verify()
                self.log[line] += f"  [{time.perf_counter() - begun:.2f} s]"
                if self.link_page and (i + 1) % LINK_EVERY == 0:
                    step = f"#{i + 1} re-opening the link"
                    check_link(self.at, self.page, title_key=self.title_key, exact=self.exact,
                               has_result=self.has_result)
            if self.link_page:
                step = "re-opening the final link"
                check_link(self.at, self.page, title_key=self.title_key, exact=self.exact,
                           has_result=self.has_result)
        except BaseException as exc:
            shown = self.log if len(self.log) <= 400 else ["..."] + self.log[-400:]
            raise AssertionError(
                f"{self.name} fuzz failed at {step} (seed {self.seed}, {self.actions} actions).\n"
                f"Replay: SELFATTN_FUZZ_SEED={self.seed} SELFATTN_FUZZ_ACTIONS={self.actions} "
                f"SELFATTN_FUZZ_RESTART={self.restart_every} python -m pytest -q tests/test_fuzz_{self.name}.py\n"
                f"{type(exc).__name__}: {exc}\nActions:\n" + "\n".join(shown)) from exc
        finally:
            if os.environ.get("SELFATTN_FUZZ_LOG"):  # a folder to keep every walk's actions in
                path = os.path.join(os.environ["SELFATTN_FUZZ_LOG"], f"{self.name}-{self.seed}.txt")
                with open(path, "w", encoding="utf-8") as out:
                    out.write("\n".join(self.log) + "\n")
        print(f"{self.name} fuzz: seed {self.seed}, {self.actions} actions in {time.perf_counter() - started:.1f} s")

    # ── moves every page shares ──
    parts: tuple[str, ...] = ()  # the page's parts (ui/parts.py), in order; its setting is part_key
    part_key = ""

    def part(self) -> str:
        """The part open now."""
        return self.at.session_state[self.part_key] if self.part_key in self.at.session_state else self.parts[0]

    def open_part(self, part: str) -> None:
        """Open ``part`` as a click on its tab does (its label becomes the tab bar's state; the callback sets
        the part), unless it is open already."""
        if self.part() != part:
            self.at.session_state[self.part_key] = part
            self.at.run()
            self.log.append(f"      part -> {part}")

    def switch_part(self) -> str:
        """Open another part: by its tab, or by the "next part" button at the open part's end. Only the open
        part's body runs (the page's checks see its widgets alone) and the link names the part."""
        from ui import parts

        at, before = self.at, self.part()
        if self.rng.random() < 0.3 and any(b.key == parts.next_key(self.part_key) for b in at.button):
            at.button(key=parts.next_key(self.part_key)).click().run()
            part = self.parts[(self.parts.index(before) + 1) % len(self.parts)]
            how = "next button"
        else:
            part = self.rng.choice(self.parts)
            at.session_state[self.part_key] = part
            at.run()
            how = "tab"

        def opened() -> None:
            assert self.part() == part, ("the part opened", part, self.part())
            assert link_params(self.at).get("part", self.parts[0]) == part, ("the link's part", link_params(self.at))
            tabs = self.at.session_state[parts.tabs_key(self.part_key)]
            assert tabs.startswith(f"{self.parts.index(part) + 1} · "), ("the tab bar's open tab", tabs)

        self.expect.append(opened)
        return f"part {part} ({how})"

    def open_or_close(self, key: str) -> str:
        """Click the expander ``key`` whose body runs only while it is open (a page's weights' editors): a closed one
        opens and its editors are drawn, an open one closes and they are not; the link stays as it was."""
        from support.apptest import click_expander, editors as shown_editors

        panel = next((e for e in self.at.main.expander if e.proto.id.endswith(f"-{key}")), None)
        if panel is None:
            return self.rerun()
        opened = not panel.proto.expanded
        link = lambda: {k: v for k, v in settings_in_link(self.at).items() if k not in self.moving()}  # noqa: E731
        before, count = link(), len(shown_editors(self.at))
        click_expander(self.at, key, opened)

        def clicked() -> None:
            now = next(e for e in self.at.main.expander if e.proto.id.endswith(f"-{key}"))
            assert now.proto.expanded == opened, ("the expander clicked", key, opened)
            assert (len(shown_editors(self.at)) > count) == opened, ("its editors drawn while open", key, opened)
            assert link() == before, ("the link kept", key)

        self.expect.append(clicked)
        return f"expander {key} {'opened' if opened else 'closed'}"

    def rerun(self) -> str:
        self.at.run()
        return "rerun"

    def switch_language(self) -> str:
        """Switch the language; every setting stays (the link changes in its language alone)."""
        lang = "zh" if lang_of(self.at) == "en" else "en"
        moving = self.moving()
        before = {k: v for k, v in settings_in_link(self.at).items() if k not in moving}
        if self.rng.random() < 0.5:
            self.at.sidebar.radio[0].set_value(lang).run()
            how = "sidebar"
        else:
            self.at.session_state["lang"] = lang
            self.at.run()
            how = "session state"

        def kept() -> None:
            after = {k: v for k, v in settings_in_link(self.at).items() if k not in moving}
            assert after == before, ("a language switch changed the settings", before, after)

        self.expect.append(kept)
        return f"language {lang} ({how})"

    def widgets(self, kind: str, skip: tuple[str, ...] = ()) -> list:
        found = [w for w in getattr(self.at.main, kind) if not w.proto.disabled]
        return [w for w in found if not any(str(w.key or "").startswith(s) for s in skip)]

    def pick(self, kind: str, skip: tuple[str, ...] = ()):
        found = self.widgets(kind, skip)
        return self.rng.choice(found) if found else None

    def set_one(self, kind: str, value_for) -> str:
        """Give one enabled widget of ``kind`` the value ``value_for(widget)`` (a rerun if there is none)."""
        w = self.pick(kind)
        if w is None:
            return self.rerun()
        value = value_for(w)
        w.set_value(value).run()
        return f"{kind} {w.key} = {value!r}"

    def toggle(self) -> str:
        return self.set_one("toggle", lambda w: not w.value)

    def number(self) -> str:
        return self.set_one("number_input", self.number_for)

    def number_for(self, w):
        lo, hi = w.min, w.max
        pool = [0, 1, -1, 2, 7, 33, 2**31, 2**53, -(2**31), None]
        if lo is not None:
            pool += [lo, lo, lo - 1]
        if hi is not None:
            pool += [hi, hi, hi + 1]
        if lo is not None and hi is not None:
            pool += [self.rng.randint(int(lo), int(min(hi, lo + 100)))] * 3
        return self.rng.choice(pool)

    def raw_options(self, w) -> list:
        """The options of a chooser as the script gave them (the widget holds only their names)."""
        candidates: list = [*range(-1, 257), True, False]
        for page in settings.PAGE_NAMED:
            for f in settings.fields(page):
                candidates += list(getattr(f.codec, "options", ()))
        candidates += self.extra_options()
        names = list(w.options)
        out = []
        for name in names:
            for c in candidates:
                try:
                    if str(w.format_func(c)) == name:
                        out.append(c)
                        break
                except Exception:  # noqa: BLE001 - a name the format function does not know
                    continue
            else:
                out.append(name)
        return out

    def extra_options(self) -> list:
        return []

    def choose(self) -> str:
        kinds = ["selectbox", "radio", "segmented_control", "select_slider"]
        found = [(k, w) for k in kinds for w in self.widgets(k)]
        if not found:
            return self.rerun()
        kind, w = self.rng.choice(found)
        options = self.raw_options(w)
        value = self.rng.choice(options)
        w.set_value(value).run()
        return f"{kind} {w.key} = {value!r}"

    def multichoose(self) -> str:
        return self.set_one("multiselect", self.some_options)

    def some_options(self, w) -> list:
        options = self.raw_options(w)
        r = self.rng.random()
        some = self.rng.sample(options, self.rng.randint(1, len(options)))
        return [] if r < 0.15 else list(options) if r < 0.3 else some

    def slide(self) -> str:
        return self.set_one("slider", lambda w: self.rng.choice([w.min, w.max,
                                                                 self.rng.randint(int(w.min), int(w.max))]))

    def edit_table_cell(self, label_of, tables, send) -> str:
        """Type into one cell of an editor shown: bad text, a corner case or a number. ``tables`` are the page's
        table ids, ``label_of(at, id)`` the name its editor shows, ``send(at, id, row, col, text)`` types it."""
        from support.apptest import editors as shown_editors

        named = {label_of(self.at, table): table for table in tables}
        name = self.rng.choice([m for m in shown_editors(self.at) if m in named] or [None])
        if name is None:
            return self.rerun()
        table, data = named[name], shown_editors(self.at)[name]
        i, j = self.rng.randrange(len(data["cells"])), self.rng.randrange(len(data["cells"][0]))
        r = self.rng.random()
        value = (self.rng.choice(BAD_CELLS) if r < 0.3 else self.rng.choice(GOOD_CELLS) if r < 0.55
                 else repr(round(self.rng.uniform(-3, 3), self.rng.randint(0, 4))))
        send(self.at, table, i, j, "" if value is None else value[:40])
        return f"cell {table}[{i}, {j}] = {value!r:.60}"

    def type_text(self) -> str:
        w = self.pick("text_input")
        if w is None:
            return self.rerun()
        text = hostile_text(self.rng)
        self.type_into(w, text)
        return f"text {w.key} = {text[:60]!r}{'…' if len(text) > 60 else ''} ({len(text)} chars)"

    def type_into(self, w, text: str) -> None:
        limit = w.proto.max_chars or None
        if any(ord(ch) < 32 or ord(ch) == 127 for ch in text[:limit]):
            self.exact = False  # a link cannot carry it (it says so when opened)
        key = w.key
        w.set_value(text).run()

        def kept() -> None:  # nothing typed is lost (Streamlit cuts at the box's max_chars, as the browser does)
            got, want = self.at.session_state[key], text[:limit] if limit else text
            assert got == want, (key, want[:80], len(want), str(got)[:80], len(str(got)))

        self.expect.append(kept)

    focus_of: dict[str, str] = {}  # a map key's prefix -> the setting a click on a token's row sets (the focus)

    def click_map(self) -> str:
        """A click on a row of a map drawn now (alone or in a row of maps), or a crafted pick: a click on a token's
        row of a map whose rows are the queries makes that token the focus; anything else leaves the focus."""
        from support.apptest import send_pick, step_maps

        maps = step_maps(self.at)
        if not maps:
            return self.rerun()
        key = self.rng.choice(sorted(maps))
        data, link = maps[key], maps[key]["link"] or ""
        rows = len(data["rows"])
        value = self.rng.choice([self.rng.randrange(rows) if rows else -1, rows, -1, 1.5, "0", None, [0], 2**70,
                                 10**400])
        picks = type(value) is int and 0 <= value < rows and link not in ("", "wv") and not link.startswith("src:")
        setting = next((s for prefix, s in self.focus_of.items() if key.startswith(prefix)), None)
        state = self.at.session_state
        before = state[setting] if setting and setting in state else None
        send_pick(self.at, key, value)

        def focused() -> None:
            assert state[setting] == (value if picks else before), (key, value, before, state[setting])

        if setting and before is not None:
            self.expect.append(focused)
        return f"click map {key} row {value!r}"

    def click(self, skip: tuple[str, ...] = ()) -> str:
        w = self.pick("button", skip)
        if w is None:
            return self.rerun()
        w.click().run()
        return f"button {w.key or w.label!r}"
