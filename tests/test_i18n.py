"""One catalog, two languages: same keys, no empty text, and every key the code uses exists."""

import re
import string
from pathlib import Path

import pytest

from selfattn.i18n import CATALOG, LANGS, t, t_plain
from support.source import tree

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
    for path in [*ROOT.glob("pages/*.py"), *ROOT.glob("ui/**/*.py"), ROOT / "app.py"]:
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
    assert t_plain("pg.upload_ok", "zh", name="a.csv") == "已载入 a.csv。"
    assert t("nav.home", "xx") == "Home"


def test_visitor_text_in_a_message_is_text_never_markdown():
    """Every str parameter is escaped (a link, an image, emphasis, maths, a Streamlit directive stay
    characters); messages and escaped values nest without being escaped twice; numbers keep formats."""
    from markdown_it import MarkdownIt

    from selfattn.i18n import Markdown, escape_markdown

    render = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render  # Streamlit's GFM, less autolinks
    payloads = ["[Log in again](https://evil.example)", "![](http://127.0.0.1:9/pixel.gif)",
                "https://evil.example/login", "www.evil.example", "<img src=x onerror=alert(1)>", "**bold** _it_",
                "# heading", "$x^2$", ":red[alarm] :material/warning:", "a\u2028b\nc", "`code`", "| a | b |", "- item", "1. item",
                "a@b.example", "&amp; &#x41;", "~~gone~~"]
    for payload in payloads:
        message = t("pg.upload_ok", "en", name=payload)
        html = render(message)
        assert "<a " not in html and "<img" not in html and "<strong>" not in html and "<em>" not in html, html
        assert "<h1>" not in html and "<code>" not in html and "<table>" not in html, html
        assert "<li>" not in html and "<s>" not in html and "<del>" not in html, html
        shown = re.sub(r"<[^>]+>", "", html).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
        shown = shown.replace("&amp;", "&").replace("\u2060", "").strip()  # word joiners keep bare URLs unlinked
        expected = t_plain("pg.upload_ok", "en", name=payload.replace("\u2028", " ").replace("\n", " "))
        assert shown == expected, (shown, expected)
    inner = t("pg.upload_ok", "en", name="a.csv")
    assert isinstance(inner, Markdown) and escape_markdown(inner) is inner  # a message is not escaped twice
    assert t("hd.upload_ok", "en", name=Markdown("**x**"), n=3) == t_plain("hd.upload_ok", "en", name="**x**", n=3)
    assert t("share.why_out_of_range", "en", lo=1, hi=32) == "outside 1 to 32"


def test_every_input_error_has_a_translated_message_with_its_parameters():
    """Each InputError raised in selfattn/ has err.<code> in the catalog, using only the params passed."""
    import ast

    seen = 0
    for path in (ROOT / "selfattn").rglob("*.py"):
        for node in ast.walk(tree(path)):
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


def raised_params() -> dict[str, set[str]]:
    """Every InputError code raised in selfattn/ with the parameters passed where it is raised."""
    import ast

    codes: dict[str, set[str]] = {}
    for path in (ROOT / "selfattn").rglob("*.py"):
        for node in ast.walk(tree(path)):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "InputError" and node.args
                    and isinstance(node.args[0], ast.Constant)):
                codes.setdefault(node.args[0].value, set()).update(k.arg for k in node.keywords if k.arg)
    return codes


def test_message_variants_belong_to_a_raised_code_and_use_its_parameters():
    """err.<code>.<reason or name> entries (see ui.widgets.error_key) hang off a real code."""
    codes = raised_params()
    variants = [key for key in CATALOG if key.startswith("err.") and key.count(".") == 2]
    assert len(variants) > 10
    for key in variants:
        code = key.split(".")[1]
        assert code in codes and f"err.{code}" in CATALOG, key
        for lang in LANGS:
            wanted = {f for _, f, _, _ in string.Formatter().parse(CATALOG[key][lang]) if f}
            assert wanted <= codes[code], f"{key} ({lang}) uses {wanted - codes[code]}, not passed"


def test_no_internal_name_reaches_a_visitor():
    """Reasons and field names that are codes get their own words; rows and bytes count from 1."""
    from selfattn import bench
    from selfattn.bench import results as bench_results
    from ui.widgets import error_key

    for reason in bench_results._REASONS:
        assert f"err.results_bad_value.{reason}" in CATALOG, reason
    for name in ("heads", "seq_lens", "impls"):  # the page's three multiselects, left empty
        assert f"err.bench_empty.{name}" in CATALOG, name
    # What a visitor of the hosted demo can hit with the page's choosers: too many weights, too many runs.
    for change in ({"seq_lens": (2048,), "heads": (16,), "batch": 4}, {"seq_lens": tuple(range(8, 80, 8))}):
        with pytest.raises(bench.InputError) as info:
            bench.validate_config(bench.BenchConfig(**{"d_model": 64, **change}), hosted=True)
        key = error_key(info.value)
        assert key == f"err.bench_limit.{info.value.params['name']}", key
        for lang in LANGS:
            text = t(key, lang, **info.value.params)
            assert "attention_elements" not in text and "runs =" not in text, text
    for lang in LANGS:
        text = t("err.results_bad_value.not_allowed", lang, row=2, field="status", value="'great'",
                 reason="not_allowed", allowed="ok, oom, refused, error", max_chars=300)
        assert "not_allowed" not in text and "2" in text


@pytest.mark.parametrize("lang", list(LANGS))
def test_every_page_names_itself_in_the_browser_tab(lang, monkeypatch):
    """The tab says "<page> · selfattn" in the chosen language (the last set_page_config title wins)."""
    import streamlit

    from support.apptest import open_page

    titles = []
    original = streamlit.set_page_config

    def recording(*args, **kwargs):
        if kwargs.get("page_title"):
            titles.append(kwargs["page_title"])
        return original(*args, **kwargs)

    monkeypatch.setattr(streamlit, "set_page_config", recording)
    for page, key in (("home", "nav.home"), ("playground", "nav.playground"), ("embeddings", "nav.embeddings"),
                      ("heads", "nav.heads")):
        titles.clear()
        open_page(page, lang)
        assert titles and titles[-1] == f"{CATALOG[key][lang]} · selfattn", (page, titles)
