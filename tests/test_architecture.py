"""The house's rules that a reader of docs/architecture.md relies on, checked (issue 38, items 3, 4 and 7).

- ``selfattn/`` never imports Streamlit (read from the source, and by importing every module of it in a fresh
  process);
- ``ui/state.py`` is the mechanism only: it imports no page's package and stays about 300 lines; each page's
  settings and session keys are declared with the page (``ui/navigation.py``'s ``declared_in``), and no two pages
  declare the same key;
- docs/architecture.md is true: every path it cites exists, every name it cites beside a path is in that file,
  every dotted name it cites resolves, and it names every module of ``ui/``, every component file and every part
  of ``selfattn/``.
"""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from support.source import tree
from ui.navigation import PAGES
from ui import state

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
PAGE_PACKAGES = ("selfattn.playground", "selfattn.block", "selfattn.text", "selfattn.bench",
                 *(f"ui.{page.name}" for page in PAGES))


def imports_of(path: Path) -> set[str]:
    """Every module ``path`` imports, anywhere in it (``from a import b`` counts as a and a.b)."""
    found = set()
    for node in ast.walk(tree(path)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_selfattn_never_imports_streamlit_in_its_source():
    named = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "selfattn").rglob("*.py")
                   if any(name == "streamlit" or name.startswith("streamlit.") for name in imports_of(path)))
    assert not named, f"these modules of selfattn/ import Streamlit: {named}"


def test_importing_all_of_selfattn_loads_no_streamlit():
    modules = sorted(".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
                     for path in (ROOT / "selfattn").rglob("*.py") if path.name != "__main__.py")
    script = ("import importlib, sys\n"
              f"for name in {modules!r}: importlib.import_module(name)\n"
              "print(sorted(m for m in sys.modules if m == 'streamlit' or m.startswith('streamlit.')))")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]", done.stdout[-500:]
    assert len(modules) > 60


def test_the_shared_state_module_knows_no_page():
    source = ROOT / "ui" / "state.py"
    reached = sorted(name for name in imports_of(source)
                     if any(name == package or name.startswith(package + ".") for package in PAGE_PACKAGES))
    assert not reached, f"ui/state.py imports a page's package: {reached}"
    assert len(source.read_text(encoding="utf-8").splitlines()) <= 320


def test_each_page_declares_its_own_keys_and_no_two_pages_share_one():
    owner: dict[str, str] = {}
    for page in PAGES:
        if not page.declared_in:
            assert state.fields(page.name) == ()
            continue
        declared = importlib.import_module(page.declared_in)
        keys = [f.key for f in state.fields(page.name)] + list(declared.KEPT) + list(declared.WIDGETS)
        assert keys, page.name
        for key in keys:
            assert key not in owner or owner[key] == page.name, f"{key} is declared by {owner[key]} and {page.name}"
            owner[key] = page.name
    frame = set(state.FRAME_KEPT) | set(state.FRAME_WIDGETS)
    assert not frame & set(owner), frame & set(owner)
    assert set(state.kept_keys()) >= set(state.FRAME_KEPT) and "tb_good" in state.kept_keys()


# ── docs/architecture.md ────────────────────────────────────────────────────────────────────

TOP = ("app.py", "pages/", "ui/", "selfattn/", "tests/", "benchmarks/", "docs/", "deploy/", "support/")
ALIASES = {"settings": "ui.state", "state": "ui.state", "links": "ui.links", "fit": "ui.map_sizes", "heatmap":
           "ui.components.heatmap", "pg": "ui.playground.page", "tb": "ui.block.page", "common": "ui.widgets"}


def cited() -> list[str]:
    return re.findall(r"`([^`\n]+)`", DOC.read_text(encoding="utf-8"))


def test_every_path_the_architecture_cites_exists():
    paths = [c.split()[0].split(":")[0] for c in cited() if c.startswith(TOP)]
    missing = sorted({p for p in paths if "<" not in p and "*" not in p and not (ROOT / p.rstrip("/")).exists()})
    assert len(paths) > 40
    assert not missing, f"docs/architecture.md cites paths that do not exist: {missing}"


def test_every_name_cited_beside_a_path_is_in_that_file():
    text = DOC.read_text(encoding="utf-8")
    pairs = re.findall(r"`((?:app|pages|ui|selfattn)[\w/]*\.(?:py|js))` `([A-Za-z_]\w*)`", text)
    absent = sorted(f"{path} {name}" for path, name in pairs
                    if not re.search(rf"\b{name}\b", (ROOT / path).read_text(encoding="utf-8")))
    assert len(pairs) > 10
    assert not absent, f"docs/architecture.md cites names its files do not have: {absent}"


def resolves(dotted: str) -> bool:
    head, _, rest = dotted.partition(".")
    parts = [*ALIASES[head].split("."), *rest.split(".")] if head in ALIASES else dotted.split(".")
    for cut in range(len(parts), 0, -1):  # the longest prefix that is a module, then attributes
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_every_dotted_name_the_architecture_cites_resolves():
    dotted = sorted({c.split("(")[0] for c in cited()
                     if re.fullmatch(r"(?:selfattn|ui|settings|state|links|fit|heatmap|pg|tb|common)(?:\.\w+)+(?:\(.*\))?", c)})
    broken = [name for name in dotted if not resolves(name)]
    assert len(dotted) > 15
    assert not broken, f"docs/architecture.md cites names that do not exist: {broken}"


def test_the_architecture_names_every_module_component_and_part():
    text = DOC.read_text(encoding="utf-8")
    wanted = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "ui").rglob("*.py")) if p.name != "__init__.py" and "components" not in p.parts]
    wanted += [str(p.relative_to(ROOT)) for p in sorted((ROOT / "ui" / "components").iterdir())
               if p.suffix in (".py", ".js", ".css") and p.name != "__init__.py"]
    wanted += [f"selfattn/{p.name}/" for p in sorted((ROOT / "selfattn").iterdir()) if (p / "__init__.py").exists()]
    wanted += [f"selfattn/{p.name}" for p in sorted((ROOT / "selfattn").glob("*.py")) if p.name != "__init__.py"]
    unnamed = [path for path in wanted if f"`{path}`" not in text]
    assert not unnamed, f"docs/architecture.md does not name: {unnamed}"


@pytest.mark.parametrize("page", [p for p in PAGES if p.declared_in], ids=lambda p: p.name)
def test_a_page_s_declaration_is_plain_python(page):
    path = ROOT / Path(*page.declared_in.split(".")).with_suffix(".py")
    assert not any(n == "streamlit" or n.startswith("streamlit.") for n in imports_of(path))


# ── No arithmetic on matrices in ui/ or pages/ ─────────────────────────────────────────────

MATRIX_MATH = {"mean", "sum", "cumsum", "cumprod", "prod", "std", "var", "dot", "matmul", "einsum", "transpose",
               "reshape", "swapaxes", "max", "min", "argmax", "argmin", "abs", "exp", "log", "sqrt", "where", "stack",
               "concatenate", "vstack", "hstack", "tensordot", "outer", "maximum", "minimum", "clip", "diff", "tril",
               "triu", "softmax", "norm"}


def matrix_math(path: Path) -> list[str]:
    """Each line of ``path`` that multiplies matrices (``@``) or calls a maths method or numpy function on one."""
    found, name = [], path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    for node in ast.walk(tree(path)):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            found.append(f"{name}:{node.lineno}: @")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MATRIX_MATH:
            found.append(f"{name}:{node.lineno}: .{node.func.attr}(")
    return found


def test_the_scan_sees_matrix_math(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import numpy as np\na = x @ w\nb = np.max(np.abs(a))\nc = a.mean(axis=0)\nd = max(1, 2)\n")
    assert sorted(matrix_math(probe)) == ["probe.py:2: @", "probe.py:3: .abs(", "probe.py:3: .max(",
                                          "probe.py:4: .mean("]  # the builtin max(1, 2) is not one


def test_no_line_of_ui_or_pages_does_arithmetic_on_matrices():
    """The maths is in selfattn/ (tested against torch); ui/ and pages/ draw what it returned."""
    files = [*sorted((ROOT / "ui").rglob("*.py")), *sorted((ROOT / "pages").glob("*.py")), ROOT / "app.py"]
    found = [hit for path in files for hit in matrix_math(path)]
    assert not found, "arithmetic on matrices outside selfattn/:\n" + "\n".join(found)


def test_the_helpers_that_took_the_maths_out_of_ui_agree_with_numpy():
    import numpy as np

    from selfattn.core import compare
    from selfattn.core.heads import combine_heads, merge_heads, split_heads, stack_heads
    from selfattn.display.colours import finite_extent

    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    assert compare.largest_difference(a, b) == np.abs(a - b).max()
    diff, largest = compare.difference(a, b)
    np.testing.assert_array_equal(diff, b - a)
    assert largest == np.abs(b - a).max()
    assert compare.largest_magnitude(a * 1e-3, floor=1.0) == 1.0 and compare.largest_magnitude(a) == np.abs(a).max()
    assert compare.shared_domain_if_spread(np.ones(3), np.ones(2)) is None
    assert compare.shared_domain_if_spread(a, b) == (min(a.min(), b.min()), max(a.max(), b.max()))
    np.testing.assert_array_equal(compare.columns(a[0], b[0]), np.stack([a[0], b[0]], axis=1))
    assert compare.extent(a) == (a.min(), a.max())
    w = rng.random(size=(2, 3, 3))
    np.testing.assert_array_equal(combine_heads(w, "mean"), w.mean(axis=0))
    np.testing.assert_array_equal(combine_heads(w, "max"), w.max(axis=0))
    with pytest.raises(ValueError):
        combine_heads(w, "median")
    np.testing.assert_array_equal(stack_heads(w)[3:], w[1])
    x = rng.normal(size=(3, 4))
    np.testing.assert_array_equal(merge_heads(split_heads(x, 2)), x)
    assert finite_extent(np.array([[-np.inf, 2.0], [0.5, -np.inf]])) == (0.5, 2.0)
    assert finite_extent(np.full((2, 2), -np.inf)) == (0.0, 0.0)


def test_no_page_package_imports_another():
    """ui/ holds the shared mechanism; each page's package reads only that (and selfattn), never another page's."""
    import ast

    packages = sorted(p.name for p in (ROOT / "ui").iterdir() if (p / "__init__.py").exists() and p.name != "components")
    assert {"playground", "block", "seq2seq", "embeddings", "heads", "efficient", "poet"} <= set(packages)
    crossing = []
    for package in packages:
        for path in sorted((ROOT / "ui" / package).rglob("*.py")):
            for node in ast.walk(tree(path)):
                names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                         else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
                for name in names:
                    parts = name.split(".")
                    if parts[0] == "ui" and len(parts) > 1 and parts[1] in packages and parts[1] != package:
                        crossing.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not crossing, crossing
