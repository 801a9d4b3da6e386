"""Issue 38, item 1 (in part): the editable pages take the editors' protocol and the linked maps from one kit
(ui/editing.py), and every map of both pages carries the editors' revisions (the guard in heatmap.js that keeps a
preview of newer typing over an older answer was fed on the Playground only)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from support.apptest import editors, mounted_maps, open_page
from support.source import tree
from tests import blockpage

ROOT = Path(__file__).resolve().parents[1]
KIT = ("show_map", "on_pick", "on_map_pick", "mounted_cells", "_mounted_cells", "editor_texts")


# The wiring a page of typed tables declares rather than writes (ui/editable_page.py's EditablePage, issue 51)
DECLARED = ("state", "current", "setup", "open_link", "take_sent", "read", "editor", "load_preset", "on_size", "undo",
            "divisors", "follow_preset", "preset_note", "preview_engine", "on_layer", "on_group", "_snapshot")


def defined_in(module: str) -> set[str]:
    return {node.name for node in ast.walk(tree(ROOT / module))
            if isinstance(node, ast.FunctionDef)}


@pytest.mark.parametrize("module", ["ui/playground/page.py", "ui/block/page.py", "ui/seq2seq/page.py"])
def test_no_page_keeps_its_own_copy_of_the_kit(module):
    assert not defined_in(module) & set(KIT), defined_in(module) & set(KIT)
    text = (ROOT / module).read_text(encoding="utf-8")
    assert "from ui.editing import" in text or "from ui.editable_page import" in text


@pytest.mark.parametrize("module", ["ui/block/page.py", "ui/seq2seq/page.py"])
def test_a_page_of_typed_tables_is_declared_and_never_counts_its_editors_generations(module):
    text = (ROOT / module).read_text(encoding="utf-8")
    assert not defined_in(module) & set(DECLARED), defined_in(module) & set(DECLARED)
    assert "EditablePage(" in text and '"version"' not in text


@pytest.mark.parametrize("script", ["pages/playground.py", "pages/block.py", "pages/seq2seq.py"])
def test_no_page_script_reads_its_editors_generation(script):
    text = (ROOT / script).read_text(encoding="utf-8")
    assert '"version"' not in text and "'version'" not in text  # Editors.renewed_by, generation_key say it


def raw_revs(at) -> dict[str, dict]:
    """Each map's revisions as the browser gets them, by the map's key."""
    return {key: data.get("revs") for key, (_element, data) in mounted_maps(at).items()}


def test_the_block_page_s_maps_carry_the_revision_of_the_table_they_were_computed_from():
    at = open_page("block")
    instance = editors(at)["X"]["instance"]
    blockpage.send(at, "x", 0, 0, "0.5")
    blockpage.send(at, "x", 1, 1, "-0.25")
    revs = raw_revs(at)
    assert revs and all(r is not None and r["tb_x"] == [instance, 2] for r in revs.values()), revs


def test_the_playground_s_maps_still_carry_theirs():
    at = open_page("playground")
    x = next(data for name, data in editors(at).items() if name.startswith("X"))
    table = [list(row) for row in x["cells"]]
    table[0][1] = "7"
    at.session_state[x["instance"]] = {"table": {"rev": 3, "cells": table}}
    at.run()
    revs = raw_revs(at)
    assert revs and all(r["pg_x"] == [x["instance"], 3] for r in revs.values()), revs
