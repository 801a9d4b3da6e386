"""Issue 38, item 1 (in part): the editable pages take the editors' protocol and the linked maps from one kit
(ui/editing.py), and every map of both pages carries the editors' revisions (the guard in heatmap.js that keeps a
preview of newer typing over an older answer was fed on the Playground only)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from support.apptest import editors, open_page
from support.visitor import component_data
from tests import blockpage

ROOT = Path(__file__).resolve().parents[1]
KIT = ("show_map", "on_pick", "on_map_pick", "mounted_cells", "_mounted_cells", "editor_texts")


@pytest.mark.parametrize("module", ["ui/playground/page.py", "ui/block/page.py"])
def test_neither_page_keeps_its_own_copy_of_the_kit(module):
    defined = {node.name for node in ast.walk(ast.parse((ROOT / module).read_text(encoding="utf-8")))
               if isinstance(node, ast.FunctionDef)}
    assert not defined & set(KIT), defined & set(KIT)
    assert "from ui.editing import" in (ROOT / module).read_text(encoding="utf-8")


def raw_revs(at) -> dict[str, dict]:
    """Each map's revisions as the browser gets them, by the map's key."""
    return {element.proto.id.split("-", 2)[-1]: component_data(element.proto.json).get("revs")
            for element in at.get("bidi_component") if element.proto.id.split("-", 2)[-1].startswith("map_")}


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
    assert revs and all(r["x"] == [x["instance"], 3] for r in revs.values()), revs
