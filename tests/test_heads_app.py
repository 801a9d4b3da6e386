"""The Heads & devices page through AppTest: comparison, PyTorch check, a tiny benchmark, uploads."""

from pathlib import Path

import pytest

from selfattn import bench
from tests.apptest import choice_widget, open_page


@pytest.mark.parametrize("lang, title", [("en", "Heads & devices"), ("zh", "多头与设备")])
def test_opens_in_both_languages_and_agrees_with_pytorch(lang, title):
    at = open_page("heads", lang)
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
    assert float(at.metric[0].value) <= 1e-10


def test_tiny_benchmark_runs_and_exports(downloads):
    at = open_page("heads")
    at.multiselect[0].set_value([1, 2])
    at.multiselect[1].set_value([32, 64])
    at.selectbox[-1].set_value(64)
    at.button(key="hd_run").click().run(timeout=300)
    assert not at.exception and not at.error
    records = at.session_state["hd_bench"]
    assert len(records) == 2 * 2 * 3 and all(r["status"] == "ok" for r in records)
    assert all(r["median_ms"] > 0 and r["d_model"] == 64 for r in records)
    back = bench.load_results(downloads["selfattn-bench.csv"], "selfattn-bench.csv")
    assert [(r["impl"], r["heads"], r["seq_len"]) for r in back] == [(r["impl"], r["heads"], r["seq_len"])
                                                                    for r in records]
    assert len(at.get("arrow_vega_lite_chart")) + len(at.get("vega_lite_chart")) >= 2


def test_upload_results_and_bad_files():
    path = sorted(Path("benchmarks/results").glob("*.json"))[0]
    records = bench.load_results(path.read_bytes(), path.name)
    at = open_page("heads")
    at.get("file_uploader")[0].upload("gpu.json", bench.records_to_json(records).encode(), "application/json").run()
    assert not at.exception and not at.error
    assert at.success and "gpu.json" in at.success[0].value
    at = open_page("heads")
    at.get("file_uploader")[0].upload("bad.json", b"{not json", "application/json").run()
    assert not at.exception
    assert at.error and "JSON" in at.error[0].value


def test_bundled_results_can_be_shown():
    at = open_page("heads")
    options = at.multiselect(key="hd_bundled").options
    assert options, "benchmarks/results/ should hold at least one results file"
    at.multiselect(key="hd_bundled").set_value([options[0]]).run()
    assert not at.exception
    assert len(at.dataframe) >= 1
