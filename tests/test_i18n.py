"""One catalog, two languages: same keys, no empty text, and every key the code uses exists."""

import re
import string
from pathlib import Path

from selfattn.i18n import CATALOG, LANGS, t

ROOT = Path(__file__).resolve().parents[1]
KEY_CALL = re.compile(r"""\btr?\(\s*f?["']([a-z_]+\.[A-Za-z0-9_.{}\[\]'"]+)["']""")


def test_every_entry_has_both_languages_with_the_same_placeholders():
    for key, entry in CATALOG.items():
        assert set(entry) == set(LANGS), key
        for lang in LANGS:
            assert entry[lang].strip(), (key, lang)
        fields = [{f for _, f, _, _ in string.Formatter().parse(entry[lang]) if f} for lang in LANGS]
        assert fields[0] == fields[1], key


def used_keys():
    """Literal keys in tr("...")/t("...") calls; f-string keys become regexes."""
    for path in [*ROOT.glob("pages/*.py"), *ROOT.glob("ui/*.py"), ROOT / "app.py"]:
        for match in KEY_CALL.finditer(path.read_text(encoding="utf-8")):
            yield path.name, match.group(1)


def test_every_key_used_by_the_code_exists():
    checked = 0
    for where, key in used_keys():
        if "{" in key:
            pattern = re.compile("^" + re.sub(r"\\\{[^}]*\\\}", "[A-Za-z0-9_]+", re.escape(key)) + "$")
            assert any(pattern.match(k) for k in CATALOG), f"{where}: no key matches {key}"
        else:
            assert key in CATALOG, f"{where}: missing key {key}"
        checked += 1
    assert checked > 50  # the scan really found the calls


def test_t_formats_and_falls_back():
    assert t("pg.upload_ok", "zh", name="a.csv") == "已载入 a.csv。"
    assert t("nav.home", "xx") == "Home"


def test_every_input_error_has_a_translated_message_with_its_parameters():
    """Each InputError raised in selfattn/ has err.<code> in the catalog, using only the params passed."""
    import ast

    seen = 0
    for path in (ROOT / "selfattn").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "InputError"):
                continue
            if not (node.args and isinstance(node.args[0], ast.Constant)):
                continue
            code = node.args[0].value
            assert f"err.{code}" in CATALOG, f"{path.name}: no catalog entry err.{code}"
            if any(k.arg is None for k in node.keywords):  # **params: checked where they are built
                continue
            given = {k.arg for k in node.keywords}
            for lang in LANGS:
                wanted = {f for _, f, _, _ in string.Formatter().parse(CATALOG[f"err.{code}"][lang]) if f}
                assert wanted <= given, f"{path.name}: err.{code} ({lang}) uses {wanted - given}, not passed"
            seen += 1
    assert seen > 40
