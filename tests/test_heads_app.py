"""The Heads & devices page through AppTest: comparison, PyTorch check, a tiny benchmark, uploads."""

import json
import re
from pathlib import Path

import pandas as pd
import pytest
import torch

from selfattn import bench
from selfattn.core.heads import MISTAKES
from selfattn.display.charts import WORDS
from selfattn.i18n import CATALOG
from support.apptest import (open_folded, assert_fits, assert_placeholders_speak, axis_labels, choice_widget, heatmap_specs,
                           open_page, open_part)
from ui import map_sizes as fit
from ui.heads import page as hd


def bench_part(lang: str = "en"):
    """The page open on its benchmark part (ui/parts.py): the results, the upload box."""
    return open_page("heads", lang, part="bench")


def both_parts_specs(at) -> list[dict]:
    """The maps of the comparison part, then of the check part's mistake panels (each part drawn alone)."""
    specs = heatmap_specs(open_part(at, "heads", "compare"))
    return specs + heatmap_specs(open_part(at, "heads", "check"))


@pytest.mark.parametrize("lang, title", [("en", "Heads & devices"), ("zh", "多头与设备")])
def test_opens_in_both_languages_and_agrees_with_pytorch(lang, title):
    at = open_page("heads", lang, part="check")
    assert title in at.title[0].value
    assert not at.error
    no_mask, causal = (float(m.value) for m in at.metric[:2])
    assert no_mask <= 1e-10 and causal <= 1e-10  # ours vs torch.nn.MultiheadAttention, float64
    assert float(at.metric[2].value) > 1e-3  # the bare-reshape mistake really changes the answer


def test_head_count_and_sentence_input():
    at = open_page("heads")
    at.select_slider(key="hd_heads").set_value(8).run()
    assert not at.exception and not at.error
    choice_widget(at.selectbox, "hd_input").set_value("sentence").run()
    assert not at.exception and not at.error
    open_part(at, "heads", "check")
    assert "8 heads" in at.caption[0].value or any("8 heads" in c.value for c in at.caption)
    assert float(at.metric[0].value) <= 1e-10


def test_tiny_benchmark_runs_and_exports(downloads):
    at = open_part(open_page("heads"), "heads", "bench")  # the comparison's heads.csv, then the benchmark part
    at.multiselect(key="hd_bench_heads").set_value([1, 2])
    at.multiselect(key="hd_bench_lens").set_value([32, 64])
    at.selectbox(key="hd_bench_d").set_value(64)
    at.button(key="hd_run").click().run(timeout=300)
    assert not at.exception and not at.error
    records = at.session_state["hd_bench"]
    assert len(records) == 2 * 2 * 3 and all(r["status"] == "ok" for r in records)
    assert all(r["median_ms"] > 0 and r["d_model"] == 64 for r in records)
    assert downloads["selfattn-bench.csv"].startswith(b"\xef\xbb\xbfimpl,")  # Excel reads it as UTF-8
    assert downloads["heads.csv"].startswith(b"\xef\xbb\xbf,")
    back = bench.load_results(downloads["selfattn-bench.csv"], "selfattn-bench.csv")
    bundled = sum(len(v) for v in hd.bundled_results().values())  # shown by default, after the visitor's run
    assert len(back) == len(records) + bundled
    assert [(r["impl"], r["heads"], r["seq_len"]) for r in back[:len(records)]] == [
        (r["impl"], r["heads"], r["seq_len"]) for r in records]
    assert all(r["min_ms"] <= r["median_ms"] for r in records)  # the best round is never above the median
    ratios = at.dataframe[0].value  # this run's rows first: naive/fused on best rounds, as the records say
    best = {(q["heads"], q["seq_len"]): q["ratio"] for q in bench.speed_ratios(records, field="min_ms")}
    mine = ratios[ratios["results"] == "your run"]
    assert [pytest.approx(best[(h, n)], rel=1e-3) for h, n in zip(mine["heads"], mine["sequence length n"])] == [
        float(v) for v in mine["best rounds three steps / fused"]]  # text: the bundled files' rows say why they have none
    assert len(at.get("arrow_vega_lite_chart")) + len(at.get("vega_lite_chart")) >= 2



@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (torch.cuda.is_available() is False)")
def test_benchmark_runs_on_the_gpu_from_the_page(downloads):
    at = open_page("heads", part="bench")
    assert at.selectbox(key="hd_device").options[-1].startswith("CUDA · "), "a GPU is offered when torch sees one"
    at.selectbox(key="hd_device").set_value("cuda")
    at.selectbox(key="hd_dtype").set_value("bfloat16")
    at.selectbox(key="hd_bench_d").set_value(512)
    at.number_input(key="hd_batch").set_value(2)
    at.multiselect(key="hd_bench_heads").set_value([1, 8])
    at.multiselect(key="hd_bench_lens").set_value([256, 1024])
    at.button(key="hd_run").click().run(timeout=300)
    assert not at.exception and not at.error
    records = at.session_state["hd_bench"]
    assert len(records) == 2 * 2 * 3 and all(r["status"] == "ok" for r in records)
    assert {r["device"] for r in records} == {"cuda"}
    assert {r["device_name"] for r in records} == {torch.cuda.get_device_name()}
    assert {r["peak_mem_kind"] for r in records} == {"measured_cuda"}
    assert all(r["dtype"] == "bfloat16" and r["median_ms"] > 0 and r["peak_mem_bytes"] > 0 for r in records)
    naive, fused = ({(r["heads"], r["seq_len"]): r for r in records if r["impl"] == i} for i in ("naive", "fused"))
    # naive materialises the (B, h, n, n) bf16 scores; the fused kernel does not.
    assert naive[(8, 1024)]["peak_mem_bytes"] >= 2 * 8 * 1024 * 1024 * 2 > fused[(8, 1024)]["peak_mem_bytes"]
    back = bench.load_results(downloads["selfattn-bench.csv"], "selfattn-bench.csv")
    assert {r["device_name"] for r in back} == {torch.cuda.get_device_name()}


def test_upload_results_and_bad_files():
    path = sorted(Path("benchmarks/results").glob("*.json"))[0]
    records = bench.load_results(path.read_bytes(), path.name)
    at = bench_part()
    open_folded(at, "hd_upload_panel").get("file_uploader")[0].upload("gpu.json", bench.records_to_json(records).encode(), "application/json").run()
    assert not at.exception and not at.error
    assert at.success and "gpu.json" in at.success[0].value
    at = bench_part()
    open_folded(at, "hd_upload_panel").get("file_uploader")[0].upload("bad.json", b"{not json", "application/json").run()
    assert not at.exception
    assert at.error and "JSON" in at.error[0].value


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_file_over_the_limit_gets_one_message_in_words_in_place_of_the_earlier_one(lang):
    """Since issue 29 the browser's cap is the page's own 2 MB (server.maxUploadSize: no file a page
    cannot take is held in memory), so the browser refuses a larger file itself; one that reaches the
    page anyway (a crafted upload) is refused in the visitor's language, alone."""
    from selfattn.i18n import t

    at = bench_part(lang)
    (uploader,) = open_folded(at, "hd_upload_panel").get("file_uploader")
    assert uploader.proto.max_upload_size_mb * 2**20 == bench.RESULTS_MAX_BYTES
    uploader.set_value(("bad.json", b"{not json", "application/json")).run()  # an earlier, unrelated error
    assert len(at.error) == 1
    size = bench.RESULTS_MAX_BYTES + 1
    open_folded(at, "hd_upload_panel").get("file_uploader")[0].set_value(("big.json", b" " * size, "application/json")).run()
    assert not at.exception
    assert [e.value for e in at.error] == [t("err.results_too_big", lang, size=size, limit=bench.RESULTS_MAX_BYTES)]


def test_bundled_results_can_be_shown():
    files = sorted(Path(__file__).parent.parent.joinpath("benchmarks", "results").glob("*.json"))
    at = bench_part()
    box = open_folded(at, "hd_upload_panel").multiselect(key="hd_bundled")
    assert sorted(box.value) == sorted(f.stem for f in files), "every committed results file loads and is shown"
    assert sorted(box.options) == sorted(hd.bundled_label(f.stem) for f in files)  # named by machine, precision
    gpu = [f.stem for f in files if "h100" in f.stem]
    assert gpu, "the H100 results measured on the device tool are offered"
    open_folded(at, "hd_upload_panel").multiselect(key="hd_bundled").set_value(gpu).run()
    assert not at.exception
    shown = pd.concat([frame.value for frame in at.dataframe])
    assert "NVIDIA H100 80GB HBM3" in set(shown.astype(str).stack())


SETTINGS = {  # the QA pass's overflowing cases, up to every maximum
    "default": {},
    "sentence": {"hd_input": "sentence"},
    "d_model 64": {"hd_d": 64},
    "16 heads": {"hd_heads": 16},
    "maxima": {"hd_n": hd.MAX_N, "hd_d": max(hd.D_CHOICES), "hd_heads": hd.MAX_HEADS},
}


@pytest.mark.parametrize("name", SETTINGS)
def test_every_heatmap_fits_its_column_with_readable_labels(name):
    at = open_page("heads")
    for key, value in SETTINGS[name].items():
        if key == "hd_input":
            choice_widget(at.selectbox, key).set_value(value).run()
        elif key == "hd_heads":
            at.select_slider(key=key).set_value(value).run()
        else:
            (at.selectbox if key == "hd_d" else at.number_input)(key=key).set_value(value).run()
    at.session_state["hd_open"] = list(MISTAKES)  # a closed panel computes nothing: open them all
    specs = both_parts_specs(at)
    assert not at.exception and not at.error
    assert len(specs) == 11  # one head, the head grid, concat, W_o, output, 2 mistakes x 3
    for spec in specs:
        assert_fits(spec, name)
    maps = [s for s in specs if "grid" not in s["usermeta"]]  # three in a row only while cells keep 4 px, else stacked
    assert min(s["width"]["step"] for s in maps) >= 4, [s["width"]["step"] for s in maps]
    head_grid = next(s for s in specs if "grid" in s["usermeta"])
    assert head_grid["usermeta"]["grid"]["columns"] <= 4


def test_every_row_and_column_of_the_default_maps_is_labelled_and_each_head_names_its_tokens():
    """The 6 x 16 maps used to label t1, t3, t5 and c1, c3, ... (Vega thinned touching labels), and the
    head grid no token at all: now every axis lists every label, none thinned, and each head's rows
    (queries) and columns (keys) are its tokens."""
    at = open_page("heads")
    tokens = [f"t{i + 1}" for i in range(at.number_input(key="hd_n").value)]
    d = at.selectbox(key="hd_d").value
    names = {f"{p}{j + 1}" for p in "co" for j in range(d)} | {CATALOG[k]["en"] for k in ("hd.right", "hd.wrong")}
    specs = heatmap_specs(at)
    maps = [s for s in specs if "grid" not in s["usermeta"]]
    assert len(maps) >= 4  # one head, concat, W_o, output, and those of an open mistake panel
    for spec in maps:
        for channel in "xy":
            axis = spec["encoding"][channel]["axis"]
            assert axis["labelOverlap"] is False and "values" not in axis, (channel, axis)
            cells = max(c["c" if channel == "x" else "r"] for c in spec["data"]["values"]) + 1
            labels = axis_labels(spec, channel)
            assert len(labels) == cells and (set(labels) == set(tokens) or set(labels) <= names), labels
        assert fit.MIN_LABEL_FONT_PX <= spec["encoding"]["x"]["axis"]["labelFontSize"] <= fit.FONT_PX
    (grid,) = [s for s in specs if "grid" in s["usermeta"]]
    heads = max(c["p"] for c in grid["data"]["values"]) + 1
    per_row = grid["usermeta"]["grid"]["columns"]
    rows_text, cols_text = ([t["t"] for t in layer["data"]["values"]] for layer in grid["layer"][2:])
    assert rows_text == tokens * -(-heads // per_row)  # left of each line of heads, its queries
    assert cols_text == tokens * min(per_row, heads)  # under each column of heads, its keys
    assert all(layer["mark"]["type"] == "text" and layer["mark"]["fontSize"] >= fit.MIN_LABEL_FONT_PX
               for layer in grid["layer"][2:])
    assert_fits(grid)


def test_labels_stay_readable_and_thin_only_in_cells_under_12_px():
    """Labels are never smaller than 12 px (read from the back of a room, tests/test_layout_browser.py);
    cells of 12 px and more label every row and column, smaller ones every k-th (the tooltips and the
    CSV name every one)."""
    assert [fit.label_font(c) for c in (30, 14, 12, 10, 6)] == [12, 12, 12, 12, 12]
    assert [fit.label_stride(c) for c in (30, 14, 12, 10, 9, 5, 3)] == [1, 1, 1, 2, 2, 3, 4]


def test_side_by_side_only_while_the_one_head_map_stays_readable():
    map_px, grid_px = fit.compare_layout([f"t{i}" for i in range(6)])
    assert map_px + fit.GAP_PX + grid_px <= fit.PAGE_PX  # both fit a desktop row
    map_px, grid_px = fit.compare_layout([f"t{i}" for i in range(hd.MAX_N)])
    assert grid_px == fit.PAGE_PX and map_px <= fit.PAGE_PX  # each on a row of its own
    columns, cell, _ = fit.grid_layout(16, 1, [f"head {i}" for i in range(16)], 300)
    assert columns * max(cell, 1) <= 300  # one-token maps: titles, not cells, set the width


def test_chart_words_are_translated():
    at = open_page("heads", "zh")
    english = set(WORDS.values())
    titles = []
    for spec in heatmap_specs(at):
        encoding = spec["layer"][0]["encoding"]
        titles += [t["title"] for t in encoding["tooltip"]]
        color = encoding["color"]
        titles.append(color.get("title") or color["condition"]["title"])
    assert titles and not english & set(titles), english & set(titles)
    assert {CATALOG["chart.weight"]["zh"], CATALOG["chart.query"]["zh"]} <= set(titles)


def test_results_headers_are_translated_but_exports_keep_field_names(downloads):
    at = bench_part("zh")
    open_folded(at, "hd_upload_panel").multiselect(key="hd_bundled").set_value([open_folded(at, "hd_upload_panel").multiselect(key="hd_bundled").options[0]]).run()
    assert not at.exception
    headers = [str(c) for frame in at.dataframe for c in frame.value.columns]
    assert CATALOG["hd.col_median_ms"]["zh"] in headers and CATALOG["hd.col_seq_len"]["zh"] in headers
    assert not {"median_ms", "seq_len", "heads", "impl", "status"} & set(headers)
    assert "median_ms" in downloads["selfattn-bench.csv"].decode().splitlines()[0]
    assert '"median_ms"' in downloads["selfattn-bench.json"].decode()
    charts = [json.loads(c.proto.spec) for c in (*at.get("vega_lite_chart"), *at.get("arrow_vega_lite_chart"))]
    timing = [json.dumps(c, ensure_ascii=False) for c in charts if "seq_len" in json.dumps(c)]
    shown = bench.load_results(downloads["selfattn-bench.json"], "selfattn-bench.json")
    setups = len({(r["device_name"], r["dtype"], r["batch"], r["d_model"]) for r in shown})  # a time and a memory chart each
    assert len(timing) == 2 * setups and all(CATALOG["hd.col_median_ms"]["zh"] in c for c in timing)  # tooltip titles


def test_benchmark_settings_survive_leaving_the_page():
    at = open_page("heads", part="bench")
    chosen = {"hd_dtype": "bfloat16", "hd_bench_d": 256, "hd_batch": 3, "hd_bench_heads": [2, 4],
              "hd_bench_lens": [32, 64], "hd_bench_impls": ["fused"]}
    at.selectbox(key="hd_dtype").set_value(chosen["hd_dtype"])
    at.selectbox(key="hd_bench_d").set_value(chosen["hd_bench_d"])
    at.number_input(key="hd_batch").set_value(chosen["hd_batch"])
    for key in ("hd_bench_heads", "hd_bench_lens", "hd_bench_impls"):
        at.multiselect(key=key).set_value(chosen[key])
    at.run()
    at.switch_page("pages/home.py").run()
    at.switch_page("pages/heads.py").run()
    assert not at.exception
    assert at.session_state["hd_part"] == "bench"  # the page opens again on the part left open
    assert at.selectbox(key="hd_device").value == "cpu"
    for key in ("hd_dtype", "hd_bench_d"):
        assert at.selectbox(key=key).value == chosen[key]
    assert at.number_input(key="hd_batch").value == chosen["hd_batch"]
    for key in ("hd_bench_heads", "hd_bench_lens", "hd_bench_impls"):
        assert at.multiselect(key=key).value == chosen[key]
        assert at.multiselect(key=key).proto.wrap  # chips wrap onto a new line instead of being cut off
    at.session_state["lang"] = "zh"  # option names do not depend on the language
    at.run()
    assert at.multiselect(key="hd_bench_impls").value == ["fused"]


def test_chinese_page_has_no_english_placeholder_of_ours():
    at = bench_part("zh")
    assert_placeholders_speak(at, "zh")
    (uploader,) = open_folded(at, "hd_upload_panel").get("file_uploader")
    assert uploader.proto.label == "结果文件" and "不超过 2 MB" in uploader.proto.help
    open_part(at, "heads", "compare")
    assert_placeholders_speak(at, "zh")
    choice_widget(at.selectbox, "hd_input").set_value("sentence").run()
    assert_placeholders_speak(at, "zh")
    assert at.text_input(key="hd_text").proto.placeholder == "输入一句话"


def test_the_limits_caption_states_what_the_choosers_offer(monkeypatch):
    at = open_page("heads", part="bench")
    lens, dims = at.multiselect(key="hd_bench_lens").options, at.selectbox(key="hd_bench_d").options
    caption = next(c.value for c in at.caption if c.value.startswith("Offered here"))
    assert f"n up to {max(map(int, lens))}," in caption and f"d_model up to {max(map(int, dims))}," in caption
    assert f"batch up to {int(at.number_input(key='hd_batch').max)}," in caption and "131072" not in caption
    monkeypatch.setenv("SELFATTN_HOSTED", "1")
    at = open_page("heads", part="bench")
    caption = next(c.value for c in at.caption if c.value.startswith("Offered here"))
    assert "n up to 1024," in caption and "batch up to 4," in caption and "at most 24 runs" in caption
    shared = [c.value for c in at.caption if c.value.startswith("This is a shared server")]
    assert shared and "about 6 s of computing on one core" in shared[0] and "30 s after" in shared[0]


def test_progress_counts_runs_from_1():
    calls = []
    records = bench.run_benchmark(bench.BenchConfig(seq_lens=(8,), d_model=8, heads=(1,), impls=("fused", "naive"),
                                                    warmup=0, min_run_time=0.01),
                                  progress=lambda *call: calls.append(hd.progress_text(*call)))
    assert len(records) == 2
    assert calls == ["Run 1 of 2: fused h=1 n=8", "Run 2 of 2: three steps h=1 n=8", "Finished all 2 runs."]


def noisy_results() -> bytes:
    path = sorted(Path("benchmarks/results").glob("*.json"))[0]
    records = bench.load_results(path.read_bytes(), path.name)
    records[0] = {**records[0], "iqr_ms": 0.58 * records[0]["median_ms"]}  # the run: IQR 58 % of the median
    records[1] = {**records[1], "status": "refused", "error_code": "bench_memory", "error": "Refused: ...",
                  "median_ms": None, "iqr_ms": None, "gflops": None, "peak_mem_bytes": None,
                  "est_mem_bytes": 3 * 2**30}
    return bench.records_to_json(records).encode()


@pytest.mark.parametrize("lang, warning", [("en", "Noisy timings (1 of the 17 shown, marked ⚠ in the table): the IQR is above 25%"),
                                           ("zh", "所显示的 17 个计时中有 1 个的四分位距超过中位数的 25%")])
def test_a_noisy_timing_is_flagged_in_the_table_and_a_warning(lang, warning):
    at = bench_part(lang)
    open_folded(at, "hd_upload_panel").multiselect(key="hd_bundled").set_value([]).run()  # the uploaded file alone
    open_folded(at, "hd_upload_panel").get("file_uploader")[0].upload("noisy.json", noisy_results(), "application/json").run()
    assert not at.exception and not at.error
    assert any(warning in w.value for w in at.warning), [w.value for w in at.warning]
    table = at.dataframe[-1].value
    flags = table[CATALOG["hd.col_noisy"][lang]]
    assert list(flags).count(hd.NOISY_MARK) == 1 and flags.iloc[0] == hd.NOISY_MARK
    assert table[CATALOG["hd.col_iqr_share"][lang]].iloc[0] == 58.0
    statuses = list(table[CATALOG["hd.col_status"][lang]])
    assert statuses[1] == CATALOG["hd.status_refused"][lang] and set(statuses) - {statuses[1]} == {
        CATALOG["hd.status_ok"][lang]}  # in words, not the codes "ok" / "refused" of the file
    assert "3072 MiB" in table[CATALOG["hd.col_error"][lang]].iloc[1]
    assert at.dataframe[-1].proto.placeholder == "–"  # a missing median is not Streamlit's English "None"


@pytest.mark.parametrize("lang, expected", [("en", "it must be one of ok, oom, refused, error"),
                                            ("zh", "只能是 ok, oom, refused, error 之一")])
def test_upload_errors_say_the_reason_in_words(lang, expected):
    path = sorted(Path("benchmarks/results").glob("*.json"))[0]
    records = bench.load_results(path.read_bytes(), path.name)
    bad = bench.records_to_json([records[0], {**records[1], "status": "great"}]).encode()
    at = bench_part(lang)
    open_folded(at, "hd_upload_panel").get("file_uploader")[0].upload("bad.json", bad, "application/json").run()
    assert not at.exception
    (message,) = [e.value for e in at.error]
    assert expected in message and "not_allowed" not in message and ("Row 2" in message or "第 2 行" in message)


@pytest.mark.parametrize("lang, expected", [("en", "Choose at least one number of heads."), ("zh", "请至少选择一个头数。")])
def test_an_empty_chooser_is_named_in_words(lang, expected):
    at = open_page("heads", lang, part="bench")
    at.multiselect(key="hd_bench_heads").set_value([])
    at.button(key="hd_run").click().run()
    assert not at.exception
    assert [e.value.split("\n\n")[0] for e in at.error] == [expected]  # not "... value for heads."


@pytest.mark.parametrize("text", ["。。。", "🙂🙂", "   "])
def test_a_sentence_without_vectors_keeps_the_last_result_without_a_traceback(text):
    """The sentence path once crashed (NameError) after keeping the last good result."""
    at = open_page("heads")
    choice_widget(at.selectbox, "hd_input").set_value("sentence").run()
    good = at.session_state["hd_good"][4].outputs.copy()
    at.text_input(key="hd_text").set_value(text).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.error and "last good result" in at.error[0].value
    assert (at.session_state["hd_good"][4].outputs == good).all()


@pytest.fixture
def hosted(monkeypatch, tmp_path):
    """Hosted mode, with its own cache folder (the benchmark's lock file) and no earlier cooldowns."""
    monkeypatch.setenv("SELFATTN_HOSTED", "1")
    monkeypatch.setenv("SELFATTN_CACHE_DIR", str(tmp_path))
    hd._finished_at().clear()
    threads = torch.get_num_threads()
    torch.set_num_threads(2)  # the tests' own one thread (tests/conftest.py) would hide a hosted mode that sets none
    yield tmp_path
    hd._finished_at().clear()
    torch.set_num_threads(threads)  # hosted mode sets one thread for the whole process


def in_a_new_thread(fn):
    """``fn()`` in a thread started now (each Streamlit run is one; torch reads its threads per thread)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(fn).result()


def tiny_sweep(at):
    at.multiselect(key="hd_bench_heads").set_value([1])
    at.multiselect(key="hd_bench_lens").set_value([32])
    at.multiselect(key="hd_bench_impls").set_value(["fused"])
    at.selectbox(key="hd_bench_d").set_value(64)


@pytest.mark.parametrize("lang, cooldown", [("en", "You can run again in"), ("zh", "秒后可以再次运行")])
def test_hosted_a_second_click_within_the_cooldown_is_refused_in_words_and_the_results_stay(hosted, lang, cooldown):
    at = open_page("heads", lang, part="bench")
    tiny_sweep(at)
    at.button(key="hd_run").click().run(timeout=120)
    assert not at.exception and not at.error
    first = at.session_state["hd_bench"]
    assert [r["num_threads"] for r in first] == [1]
    assert in_a_new_thread(torch.get_num_threads) == 1  # and every later page run's torch: one core each
    at.button(key="hd_run").click().run(timeout=120)
    (message,) = [e.value for e in at.error]
    assert cooldown in message
    assert at.session_state["hd_bench"] == first and at.dataframe  # the last results are still shown


@pytest.mark.parametrize("lang, busy", [("en", "Someone else's benchmark is running"), ("zh", "正在运行别人的测速")])
def test_hosted_a_held_lock_means_busy_in_words_not_a_queue(hosted, lang, busy):
    import fcntl
    import json as json_
    import time

    from selfattn.bench import guard

    at = open_page("heads", lang, part="bench")
    tiny_sweep(at)
    with open(guard.lock_path(), "w") as held:  # another replica's sweep
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        held.write(json_.dumps({"until": time.time() + 7.9}))
        held.flush()
        at.button(key="hd_run").click().run(timeout=30)
    (message,) = [e.value for e in at.error]
    assert busy in message and any(f"{s} {unit}" in message for s in (7, 8) for unit in ("s", "秒")), message
    assert "hd_bench" not in at.session_state
    at.button(key="hd_run").click().run(timeout=120)  # free again: it runs
    assert not at.error and len(at.session_state["hd_bench"]) == 1


@pytest.mark.parametrize("lang, words", [("en", "would take about"), ("zh", "大约需要")])
def test_hosted_an_over_budget_sweep_is_refused_before_it_runs(hosted, lang, words):
    at = open_page("heads", lang, part="bench")
    at.selectbox(key="hd_dtype").set_value("float16")
    at.selectbox(key="hd_bench_d").set_value(256)
    at.number_input(key="hd_batch").set_value(2)
    at.multiselect(key="hd_bench_heads").set_value([1, 8])
    at.multiselect(key="hd_bench_lens").set_value([512, 1024])  # within every limit, but ~20 s of computing
    at.button(key="hd_run").click().run(timeout=30)
    (message,) = [e.value for e in at.error]
    assert words in message and "hd_bench" not in at.session_state
    assert not hd._finished_at()  # a refusal costs no cooldown


def test_big_maps_are_drawn_in_part_with_words_and_the_csvs_hold_everything(hosted, downloads):
    from support.apptest import open_link

    at = open_link("heads", {"n": "64", "d": "128", "heads": "16", "causal": "1",
                             "open": "bare_reshape~scale_after_softmax"})
    assert not at.exception and not at.error
    specs = heatmap_specs(at)  # the comparison part (the link names none: the first)
    notes = "\n".join(m.value for m in at.markdown)
    specs += heatmap_specs(open_part(at, "heads", "check"))  # the mistake panels the link opens
    notes += "\n".join(m.value for m in at.markdown)
    assert not at.exception and not at.error
    assert len(specs) == 11
    grid = next(s for s in specs if "grid" in s["usermeta"])
    assert {v["p"] for v in grid["data"]["values"]} == set(range(hd.heads_shown(16, [f"t{i}" for i in range(64)])))
    assert "heads shown, to keep the page light; the CSV has every head" in notes
    assert "columns shown, to keep the page light" in notes
    heads_csv = downloads["heads.csv"].decode().splitlines()
    assert len(heads_csv) == 1 + 16 * 64 and len(heads_csv[0].split(",")) == 1 + 64
    assert len(downloads["hd_w_o.csv"].decode().splitlines()) == 1 + 128
    cells = sum(len(s["data"]["values"]) for s in specs)
    assert cells < 40_000, cells  # 151,552 before


def test_the_default_page_draws_every_map_whole():
    at = open_page("heads")
    notes = "\n".join(m.value for m in at.markdown)
    assert "to keep the page light" not in notes


def benchmark_charts(at) -> list[tuple[dict, pd.DataFrame]]:
    """The page's time and memory charts: each spec with the rows it draws."""
    import pyarrow as pa

    found = []
    for chart in (*at.get("vega_lite_chart"), *at.get("arrow_vega_lite_chart")):
        spec = json.loads(chart.proto.spec)
        if "seq_len" in chart.proto.spec and chart.proto.datasets:
            frames = [pa.ipc.open_stream(d.data.data).read_pandas() for d in chart.proto.datasets]
            found.append((spec, pd.concat(frames)))
    return found


def test_one_machine_a_chart_six_distinct_lines_at_most_and_memory_in_mib_and_gib():
    from selfattn.display import colours
    from selfattn.display.charts import MEMORY_AXIS

    at = open_page("heads", part="bench")  # the bundled CPU and H100 runs are shown by default
    charts = benchmark_charts(at)
    bundled = [r for records in hd.bundled_results().values() for r in records]
    assert len(charts) == 2 * len({(r["device_name"], r["batch"], r["d_model"]) for r in bundled}) == 4
    memory = 0
    for spec, rows in charts:
        assert rows["device_name"].nunique() == rows["d_model"].nunique() == rows["batch"].nunique() == 1
        lines, points = spec["layer"]
        colour = lines["encoding"]["color"]
        assert 1 <= rows["series"].nunique() <= 6 and colour["scale"]["domain"] == list(
            dict.fromkeys(colour["scale"]["domain"]))
        assert colour["scale"]["scheme"] == colours.SERIES and len(colours.DASHES) >= 2
        assert lines["encoding"]["strokeDash"]["field"] == "series"  # one legend: hue and dash together
        legend = colour["legend"]
        assert legend["labelFontSize"] >= 12 and legend["titleFontSize"] >= 12
        assert points["encoding"]["color"]["legend"] is None
        if lines["encoding"]["y"]["axis"].get("labelExpr") == MEMORY_AXIS:  # memory: drawn in MiB, labelled MiB/GiB
            memory += 1
            mib = {(r["impl"], r["heads"], r["seq_len"]): r["peak_mem_bytes"] / 2**20 for r in bundled
                   if r["device_name"] == rows["device_name"].iloc[0]}
            assert [pytest.approx(mib[(hd_impl(i), h, n)]) for i, h, n in zip(rows["impl"], rows["heads"],
                                                                              rows["seq_len"])] == rows["y"].tolist()
    assert memory == 2
    gpu = next(rows for spec, rows in charts if "GiB" in " ".join(rows["peak_mem"]))
    assert "16.6 GiB" in set(gpu["peak_mem"])  # naive, 16 heads, n = 8192: 17,024 MiB
    table = next(frame.value for frame in at.dataframe if "peak memory" in frame.value.columns)
    assert all(re.fullmatch(r"[\d.]+ (B|KiB|MiB|GiB)", text) for text in table["peak memory"]), table["peak memory"]


def hd_impl(name: str) -> str:
    """An implementation's id from its English name on the page."""
    return {CATALOG[f"hd.impl_{i}"]["en"]: i for i in bench.IMPLS}[name]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_conclusions_are_the_records_numbers_in_words_and_the_best_round_column_says_why_it_is_empty(lang):
    from selfattn.bench import summary
    from selfattn.i18n import t

    at = open_page("heads", lang, part="bench")
    page = "\n".join(m.value for m in at.markdown)
    bundled = [{**r, "source": "x"} for records in hd.bundled_results().values() for r in records]
    expected = []
    for setup in summary.setups(bundled):
        said = summary.summarize(setup, hd.bundled_sdpa())
        assert 2 <= len(said) <= 4
        for s in said:
            params = dict(s.params)
            if "backend" in params:
                params["backend"] = t(f"hd.backend_{params['backend']}", lang)
            expected.append(t(s.key, lang, **params))
    assert all(sentence in page for sentence in expected), [s for s in expected if s not in page]
    assert "0.28–0.44" in page and "2.20–4.82" in page  # the H100's ratios at one and at 16 heads
    headings = [m.value for m in at.markdown if m.value.startswith("#### ")]
    assert len(headings) == 2 and "d_model 512" in headings[0] and "d_model 2048" in headings[1]  # one a machine
    assert "gpu-nvidia-h100-80gb-sdpa-backends.txt" in page and "2048" in page and "128" in page
    ratios = next(frame.value for frame in at.dataframe if len(frame.value.columns) == 7)
    best = ratios[ratio_header(lang)]
    assert set(best) == {t("hd.best_missing", lang)}  # the bundled files predate best rounds, and say so


def ratio_header(lang: str) -> str:
    from selfattn.i18n import t

    names = {i: t(f"hd.impl_{i}", lang) for i in ("naive", "fused")}
    return t("hd.col_best_ratio", lang, a=names["naive"], b=names["fused"])


def test_an_upload_of_many_machines_draws_a_bounded_number_of_charts_and_says_so():
    cpu = hd.bundled_results()["cpu-amd-epyc-2core"]
    many = [{**r, "device_name": f"machine {k}"} for k in range(10) for r in cpu]  # 10 machines, 2 head counts each
    at = bench_part()
    open_folded(at, "hd_upload_panel").multiselect(key="hd_bundled").set_value([]).run()
    open_folded(at, "hd_upload_panel").get("file_uploader")[0].upload("many.json", bench.records_to_json(many).encode(), "application/json").run()
    assert not at.exception and not at.error
    assert len(benchmark_charts(at)) == 2 * hd.MAX_CHARTS
    assert CATALOG["hd.charts_capped"]["en"].format(shown=hd.MAX_CHARTS, total=10) in [c.value for c in at.caption]
    table = next(frame.value for frame in at.dataframe if "peak memory" in frame.value.columns)
    assert len(table) == len(many)  # the table still holds every run
