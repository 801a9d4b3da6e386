"""A seeded random walk over the Playground (issue 14): every widget, cells, labels, uploads, presets, undo.

Besides :func:`tests.fuzz.check_page` after every action: a bad cell's text stays in the
tables as typed; while a cell is bad (or the numbers overflow) the results keep the last good
numbers; an upload leaves one message, about the file just chosen.
"""

from __future__ import annotations

import numpy as np
import pytest

from selfattn.display.grid import MAX_DIM, MAX_LABEL_CHARS, MAX_TOKENS, MAX_UPLOAD_BYTES
from selfattn.i18n import t
from support import apptest
from tests import fuzz
from selfattn.playground.tables import TOKEN_COL
from selfattn.playground.seeded import columns
from selfattn.playground.view import CELL_CHARS
from ui.playground import page as pg


def cell(at, name: str, row: int, col: str) -> str:
    """One cell of the Playground's tables as the page holds it (``col`` a column of its editor: "x1", "token")."""
    tables = apptest.playground_tables(at)
    if col == TOKEN_COL:
        return tables["tokens"][row]
    return tables[name][row][columns(name, len(tables[name][0])).index(col) - (name == "x")]


def _csv(rows) -> bytes:
    return "\n".join(",".join(str(c) for c in row) for row in rows).encode()


class PlaygroundWalk(fuzz.Walk):
    page = name = "playground"
    title_key = "pg.title"

    def moves(self):
        return [(3, self.toggle), (3, self.number), (3, self.choose), (1, self.click),
                (14, self.edit_cell), (3, self.edit_label), (3, self.upload), (1, self.switch_language),
                (1.5, self.order_box), (0.5, self.rerun)]

    def extra_options(self):
        return list(pg.MATRICES)

    def has_result(self, at) -> bool:
        return "pg_good" in at.session_state and bool(self.outputs(at))

    @staticmethod
    def outputs(at):
        """Every step map's cells as written (Q, K, V, scores, weights, outputs, ...), or None when the
        page draws none (no result). The focus token's map is left out: its key follows the focus."""
        maps = {key: data["cells"] for key, data in apptest.step_maps(at).items()
                if not key.startswith("weighted_values_")}
        return maps or None

    def forget(self) -> None:
        self.before = None

    def remember(self) -> None:
        self.before = self.outputs(self.at)

    def check(self) -> None:
        at, lang = self.at, fuzz.lang_of(self.at)
        kept = [text for _, text in fuzz.alerts(at.main) if fuzz.kept_note(lang) in text]
        if kept and self.before is not None:
            now = self.outputs(at) or {}
            # A toggle may show or hide the scaled scores' map of the kept result: compare the maps in both.
            both = now.keys() & self.before.keys()
            assert "outputs" in both, (sorted(now), sorted(self.before))
            assert {k: now[k] for k in both} == {k: self.before[k] for k in both}, \
                "the last good result changed while the input was bad"
        box = next(e for e in at.main.expander if e.label == t("pg.import", lang))
        assert len(fuzz.alerts(box)) <= 1, ("more than one upload message", fuzz.alerts(box))

    # ── the matrix editors ──
    def shown_editors(self) -> list[str]:
        return list(pg.MATRICES) + (list(pg.BIASES) if self.at.session_state["pg_bias"] else [])

    def type_cell(self, name: str, row: int, col: str, value) -> None:
        """Type into one cell as the browser does (the editor sends its full table as typed)."""
        at = self.at
        apptest.send_cell(at, name, row, col, value)
        value = "" if value is None else value  # an emptied cell is empty text
        limit = MAX_LABEL_CHARS if col == TOKEN_COL else CELL_CHARS
        refused = len(value) > limit  # past the editor's maxlength: no browser sends it
        before = cell(at, name, row, col)
        at.run()
        if refused:  # the server drops the edit and says so; the table stays as it was
            assert any("was not used" in w.value or "未被采用" in w.value for w in at.warning), fuzz.alerts(at)
            value = before

        def kept() -> None:  # the cell holds exactly what was typed (or, refused, what it held)
            got = cell(at, name, row, col)
            same = got == value or (value is None and (got is None or (isinstance(got, float) and np.isnan(got))))
            same = same or (isinstance(value, float) and isinstance(got, float) and np.isnan(value) and np.isnan(got))
            assert same, (name, row, col, value, got)

        self.expect.append(kept)

    def edit_cell(self) -> str:
        name = self.rng.choice(self.shown_editors())
        rows = apptest.playground_tables(self.at)[name]
        row = self.rng.randrange(len(rows))
        col = self.rng.choice(columns(name, len(rows[0]))[1 if name == "x" else 0:])
        r = self.rng.random()
        value = (self.rng.choice(fuzz.BAD_CELLS) if r < 0.3 else self.rng.choice(fuzz.GOOD_CELLS) if r < 0.55
                 else repr(round(self.rng.uniform(-3, 3), self.rng.randint(0, 4))))
        self.type_cell(name, row, col, value)
        return f"cell {name}[{row}, {col}] = {value!r}"

    def edit_label(self) -> str:
        row = self.rng.randrange(len(apptest.playground_tables(self.at)["tokens"]))
        value = self.rng.choice([*fuzz.HOSTILE_TEXT[:20], None, "早", "t1", "Input 1", "输入 2", "x" * 24, "y" * 30])
        self.type_cell("x", row, TOKEN_COL, value)
        return f"label {row} = {value!r:.80}"

    # ── the shuffle's folded box ──
    def order_box(self) -> str:
        """Open or close the shuffle's box: open, its order box is made (and the walk's other moves reach its widgets);
        closed, none of them; the link as it was."""
        panel = next((e for e in self.at.main.expander if e.proto.id.endswith("-pg_order_panel")), None)
        if panel is None:  # no result drawn yet
            return self.rerun()
        opened = not panel.proto.expanded
        before = fuzz.settings_in_link(self.at)
        apptest.click_expander(self.at, "pg_order_panel", opened)

        def clicked() -> None:
            now = next(e for e in self.at.main.expander if e.proto.id.endswith("-pg_order_panel"))
            assert now.proto.expanded == opened, ("the shuffle's box clicked", opened)
            made = any(w.key == "pg_order" for w in self.at.text_input)
            assert made == opened, ("its order box made only while open", opened, made)
            assert fuzz.settings_in_link(self.at) == before, "the link kept"

        self.expect.append(clicked)
        return f"shuffle box {'opened' if opened else 'closed'}"

    # ── uploads ──
    def upload_file(self) -> tuple[str, bytes]:
        at, rng = self.at, self.rng
        tables = apptest.playground_tables(at)
        d_in = len(tables["w_q"])
        d_k, d_v = len(tables["w_q"][0]), len(tables["w_v"][0])
        target = at.session_state["pg_upload_target"] if "pg_upload_target" in at.session_state else "x"
        cols = d_in if target == "x" else d_v if target == "w_v" else d_k
        rows = rng.randint(1, MAX_TOKENS) if target == "x" else d_in
        good = np.round(np.random.default_rng(rng.randrange(1000)).standard_normal((rows, cols)), 3)
        kind = rng.choice(["good", "labelled", "header", "shape", "rows", "big", "binary", "utf16", "empty",
                           "blank", "ragged", "quote", "cells", "digits", "nul", "cr", "wide", "json",
                           "formula", "bom"])
        data = {
            "good": lambda: _csv(good),
            "labelled": lambda: _csv([[rng.choice(["=1+1", "早", "'=x", "a,b", "t", "", "L" * 60, " " * 30 + "x",
                                                   "\u200b", "🙂" * 30]), *r] for r in good]),
            "header": lambda: _csv([[f"c{j}" for j in range(cols)], *good]),
            "shape": lambda: _csv(np.ones((rows, cols + rng.choice([1, 2, 5])))),
            "rows": lambda: _csv(np.ones((rng.choice([0, MAX_TOKENS + 1, 100]) or 1, cols))),
            "big": lambda: b"1," * (MAX_UPLOAD_BYTES // 2 + rng.randint(1, 1000)),
            "binary": lambda: bytes(rng.randrange(256) for _ in range(200)),
            "utf16": lambda: _csv(good).decode().encode("utf-16"),
            "empty": lambda: b"",
            "blank": lambda: b"\n\n  \n",
            "ragged": lambda: b"1,2,3\n4,5\n6\n",
            "quote": lambda: b'"abc,1\n2,3\n',
            "cells": lambda: _csv([[rng.choice(fuzz.BAD_CELLS[:12]) or "" for _ in range(cols)] for _ in range(rows)]),
            "digits": lambda: _csv([["1" * 400] * cols] * rows),
            "nul": lambda: _csv(good) + b"\x00,\x00",
            "cr": lambda: _csv(good).replace(b"\n", b"\r"),
            "wide": lambda: _csv([[1] * (MAX_DIM * 100)]),
            "json": lambda: b'{"x": [[1, 2], [3, 4]]}',
            "formula": lambda: _csv([["=HYPERLINK(\"x\")"] * cols] * rows),
            "bom": lambda: b"\xef\xbb\xbf" + _csv(good),
        }[kind]()
        return kind, data

    def upload(self) -> str:
        if self.rng.random() < 0.1 and self.at.get("file_uploader"):  # the box closed: its uploader is no longer made
            apptest.click_expander(self.at, "pg_import_panel", opened=False)
            return "import box closed"
        uploader = apptest.open_folded(self.at, "pg_import_panel").get("file_uploader")[0]
        if self.rng.random() < 0.1:
            uploader.clear().run()
            return "upload cleared"
        kind, data = self.upload_file()
        name = self.rng.choice(["m.csv", "矩阵.csv", "../../etc/passwd.csv", "a b.CSV", "x" * 200 + ".csv"])
        uploader.set_value((name, data, "text/csv")).run()
        box = next(e for e in self.at.main.expander if e.label == t("pg.import", fuzz.lang_of(self.at)))
        assert len(fuzz.alerts(box)) == 1, ("one message about the file just chosen", fuzz.alerts(box))
        return f"upload {kind} ({len(data)} bytes) as {name[:40]!r}"


@pytest.mark.parametrize("seed", fuzz.seeds(1))
def test_random_visitor_actions_never_crash_the_playground(seed):
    PlaygroundWalk(seed).run()
