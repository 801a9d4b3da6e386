"""selfattn.bench.summary: one setup per chart, six lines at most, memory in MiB and GiB, and sentences whose
numbers are the records' (checked against the console output printed when the bundled runs were measured)."""

import re
from pathlib import Path

import pytest

from selfattn import bench
from selfattn.bench import summary

RESULTS = Path(__file__).resolve().parents[1] / "benchmarks" / "results"
GPU, CPU = "gpu-nvidia-h100-80gb-bf16", "cpu-amd-epyc-2core"
SDPA = "benchmarks/results/gpu-nvidia-h100-80gb-sdpa-backends.txt"


def bundled(name: str) -> list[dict]:
    return [{**r, "source": name} for r in bench.load_results((RESULTS / f"{name}.json").read_bytes(), f"{name}.json")]


def printed_ratios(name: str) -> dict[tuple[int, int], float]:
    """naive/fused time ratios as the CLI printed them when the run was measured (the .txt beside the files)."""
    text = (RESULTS / f"{name}.txt").read_text(encoding="utf-8")
    return {(int(h), int(n)): float(r) for h, n, r in re.findall(r"naive/fused time ratio h=(\d+) n=(\d+): ([\d.]+)",
                                                                 text.split("Two more clean runs")[0])}


def printed_rows(name: str) -> dict[tuple[str, int, int], list[str]]:
    """The CLI's table as printed: (impl, h, n) -> [median_ms, iqr_ms, GFLOP/s, peak_MiB]."""
    text = (RESULTS / f"{name}.txt").read_text(encoding="utf-8")
    rows = re.findall(r"^\s*(naive|fused|torch_mha)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+ok",
                      text, re.M)
    return {(impl, int(h), int(n)): rest for impl, h, n, *rest in rows}


def sdpa() -> dict[str, summary.SdpaRun]:
    return {SDPA: summary.read_sdpa_file(Path(__file__).resolve().parents[1] / SDPA)}


def test_the_cpu_and_the_h100_runs_are_never_on_one_chart():
    both = bundled(CPU) + bundled(GPU)
    setups = summary.setups(both)
    assert [(s.device_name, s.dtype, s.batch, s.d_model) for s in setups] == [
        ("AMD EPYC", "float32", 1, 512), ("NVIDIA H100 80GB HBM3", "bfloat16", 4, 2048)]
    assert sum(len(s.records) for s in setups) == len(both)
    for s in setups:
        assert {(r["device_name"], r["dtype"], r["batch"], r["d_model"], r["source"]) for r in s.records} == {
            (s.device_name, s.dtype, s.batch, s.d_model, s.source)}
    again = [{**r, "source": "upload.json"} for r in bundled(CPU)]  # the same machine from another file: its own chart
    assert len(summary.setups(bundled(CPU) + again)) == 2


@pytest.mark.parametrize("heads, impls, groups", [
    ((1, 8), 3, [(1, 8)]), ((1, 2, 4, 8, 16), 3, [(1, 2), (4, 8), (16,)]), ((1, 2, 4, 8, 16), 1, [(1, 2, 4, 8, 16)]),
    ((1, 2, 4, 8, 16, 32, 64), 1, [(1, 2, 4, 8, 16, 32), (64,)]), ((4, 2), 2, [(2, 4)])])
def test_a_chart_holds_six_lines_at_most(heads, impls, groups):
    records = [{"impl": bench.IMPLS[i], "heads": h} for h in heads for i in range(impls)]
    assert summary.head_groups(records) == groups
    assert all(len(g) * impls <= summary.MAX_SERIES for g in groups)


@pytest.mark.parametrize("nbytes, text", [(83886080, "80 MiB"), (17024 * 2**20, "16.6 GiB"), (2621440, "2.5 MiB"),
                                          (1536 * 2**20, "1.5 GiB"), (3000, "2.93 KiB"), (512, "512 B"),
                                          (999.9 * 2**20, "1000 MiB"), (None, "")])
def test_memory_is_written_in_mib_and_gib(nbytes, text):
    from selfattn.display.units import memory_text

    assert memory_text(nbytes) == text


def test_the_h100_sentences_say_what_the_console_printed_when_it_was_measured():
    (setup,) = summary.setups(bundled(GPU))
    said = {s.key + str(s.params.get("heads", "")): s.params for s in summary.summarize(setup, sdpa())}
    assert set(said) == {"hd.sum_slower1", "hd.sum_faster16", "hd.sum_memory16", "hd.why_unmeasured1"}
    printed = printed_ratios(GPU)
    one = [printed[(1, n)] for n in (1024, 4096, 8192)]  # 0.44, 0.33, 0.28
    assert said["hd.sum_slower1"]["ratio"] == f"{min(one):.2f}–{max(one):.2f}" == "0.28–0.44"
    # fused takes 1/ratio as long: from the records' own medians (the console rounds the ratios to 2 decimals).
    medians = {(r["impl"], r["heads"], r["seq_len"]): r["median_ms"] for r in setup.records}
    longer = [medians[("fused", 1, n)] / medians[("naive", 1, n)] for n in (1024, 4096, 8192)]
    assert said["hd.sum_slower1"]["times"] == f"{min(longer):.2f}–{max(longer):.2f}"
    assert medians[("naive", 1, 1024)] / medians[("fused", 1, 1024)] == pytest.approx(0.4447, abs=1e-4)
    sixteen = [printed[(16, n)] for n in (1024, 4096, 8192)]
    assert said["hd.sum_faster16"] == {"heads": 16, "times": f"{min(sixteen):.2f}–{max(sixteen):.2f}",
                                       "n_lo": 1024, "n_hi": 8192}
    rows = printed_rows(GPU)
    naive_mib, fused_mib = float(rows[("naive", 16, 8192)][3]), float(rows[("fused", 16, 8192)][3])  # 17024, 640
    assert said["hd.sum_memory16"] == {"heads": 16, "n": 8192, "naive": f"{naive_mib / 1024:.3g} GiB",
                                       "fused": f"{fused_mib:.3g} MiB", "ratio": f"{naive_mib / fused_mib:.2f}"}


def test_why_fused_loses_at_one_head_is_read_from_the_sdpa_file_and_says_what_it_does_not_measure():
    (setup,) = summary.setups(bundled(GPU))
    why = summary.why_fused_slower(setup, 1, sdpa())
    rows = printed_rows(GPU)
    fused = [float(rows[("fused", 1, n)][2]) / 1000 for n in (1024, 4096, 8192)]  # GFLOP/s as printed
    naive = [float(rows[("naive", 1, n)][2]) / 1000 for n in (1024, 4096, 8192)]
    text = (RESULTS / "gpu-nvidia-h100-80gb-sdpa-backends.txt").read_text(encoding="utf-8")
    default = [float(x) for x in re.findall(r"^\s*\d+\s+default\s+[\d.]+\s+(\d+)", text, re.M)]  # sdpa TF/s
    assert why == summary.Sentence("hd.why_unmeasured", {
        "heads": 1, "head_dim": 2048, "file": SDPA, "measured": 128, "backend": "cudnn",
        "default": f"{min(default):.0f}–{max(default):.0f}", "fused": f"{min(fused):.0f}–{max(fused):.0f}",
        "naive": f"{min(naive):.0f}–{max(naive):.0f}"})
    assert why.params["default"] == "445–617" and why.params["fused"] == "158–257"
    other_gpu = {SDPA: summary.SdpaRun("NVIDIA A100", 2048, 1, sdpa()[SDPA].rows)}
    assert summary.why_fused_slower(setup, 1, other_gpu) is None  # another card's measurement explains nothing here


def test_the_sdpa_file_is_read_whole_and_its_default_is_cudnn():
    run = sdpa()[SDPA]
    assert (run.device_name, run.heads, run.head_dim) == ("NVIDIA H100 80GB HBM3", 16, 128)
    assert len(run.rows) == 12 and {r["backend"] for r in run.rows} == {"default", "flash", "cudnn", "efficient"}
    at_1024 = {r["backend"]: r for r in run.rows if r["seq_len"] == 1024}
    assert at_1024["cudnn"] == {"seq_len": 1024, "backend": "cudnn", "sdpa_ms": 0.086, "sdpa_tflops": 399.0,
                                "module_ms": 0.276, "module_tflops": 622.0}
    assert summary.default_backend(run) == "cudnn"  # docs/benchmarks.md: the default's times track cuDNN's
    with pytest.raises(ValueError):
        summary.read_sdpa_backends("NVIDIA H100  torch 2.11\nnothing measured\n")


def test_a_file_timed_at_the_wide_head_names_the_refusing_backends_and_the_one_the_default_matched():
    """The shape bench_sdpa_backends.py prints (``--heads 1``) and its lines for a backend that refuses a shape."""
    text = ("NVIDIA H100 80GB HBM3  torch 2.11.0+cu130  cuDNN 91900\n"
            "measured ceilings: bf16 matmul 778 TFLOP/s, copy 2.95 TB/s\n"
            "shape: batch 4, heads 1, head_dim 2048, bfloat16, no mask\n"
            "     n    backend   sdpa ms  sdpa TF/s  module ms  module TF/s\n"
            "  1024    default     0.500        69      0.668          257\n"
            "  1024      flash unavailable: No available kernel. Aborting execution.\n"
            "  1024      cudnn unavailable: No available kernel. Aborting execution.\n"
            "  1024  efficient     0.510        67      0.670          256\n")
    run = summary.read_sdpa_backends(text)
    assert (run.heads, run.head_dim) == (1, 2048)
    assert [r["unavailable"] for r in run.rows if "unavailable" in r] == [
        "unavailable: No available kernel. Aborting execution."] * 2
    (setup,) = summary.setups(bundled(GPU))
    why = summary.why_fused_slower(setup, 1, {"wide.txt": run})
    assert why.key == "hd.why_backend" and why.params["refused"] == ["cudnn", "flash"]
    assert why.params["backend"] == "efficient" and why.params["file"] == "wide.txt"


def test_the_cpu_run_says_how_much_faster_fused_is_and_no_gpu_reason():
    (setup,) = summary.setups(bundled(CPU))
    said = summary.summarize(setup, sdpa())
    assert [s.key for s in said] == ["hd.sum_faster", "hd.sum_faster", "hd.sum_memory"]
    printed = printed_ratios(CPU)
    for s in said[:2]:
        mine = [v for (h, _), v in printed.items() if h == s.params["heads"]]
        assert s.params["times"] == f"{min(mine):.2f}–{max(mine):.2f}"
    assert said[2].params == {"heads": 8, "n": 2048, "naive": "272 MiB", "fused": "20 MiB", "ratio": "13.60"}


def test_mixed_results_give_the_ratio_at_both_ends():
    records = [{"impl": impl, "heads": 2, "seq_len": n, "median_ms": ms, "status": "ok", "device": "cpu",
                "device_name": "x", "dtype": "float32", "batch": 1, "d_model": 8, "peak_mem_bytes": None}
               for n, (a, b) in ((32, (1.0, 2.0)), (64, (3.0, 2.0))) for impl, ms in (("naive", a), ("fused", b))]
    (setup,) = summary.setups(records)
    assert summary.summarize(setup) == [summary.Sentence("hd.sum_mixed", {"heads": 2, "first": "0.50", "last": "1.50",
                                                                         "n_lo": 32, "n_hi": 64})]


def test_an_upload_of_many_machines_gets_a_bounded_number_of_charts():
    records = [{"impl": impl, "heads": h, "seq_len": 32, "median_ms": 1.0, "status": "ok" if d else "refused",
                "device": "cpu", "device_name": f"machine {d}", "dtype": "float32", "batch": 1, "d_model": 16}
               for d in range(40) for h in (1, 2, 4, 8, 16) for impl in ("naive", "fused", "torch_mha")]
    planned, total = summary.chart_plan(records, 6)
    assert total == 39 * 3  # machine 0's runs were all refused: nothing to draw; 5 head counts in 3 charts each
    assert [(s.device_name, heads) for s, heads in planned] == [
        (f"machine {d}", heads) for d in (1, 2) for heads in ((1, 2), (4, 8), (16,))]


def test_every_sentence_the_summary_can_say_is_in_the_catalog_in_both_languages_with_its_numbers():
    import inspect

    from selfattn.i18n import CATALOG

    keys = set(re.findall(r'"(hd\.(?:sum|why)_\w+)"', inspect.getsource(summary)))
    assert keys == {"hd.sum_faster", "hd.sum_slower", "hd.sum_mixed", "hd.sum_memory", "hd.why_unmeasured",
                    "hd.why_backend", "hd.sum_noise"}
    for key in keys:
        en, zh = (set(re.findall(r"\{(\w+)\}", CATALOG[key][lang])) for lang in ("en", "zh"))
        assert en == zh and en, key  # both languages say the same numbers


def test_of_many_head_counts_the_fewest_and_the_most_are_said():
    records = [{"impl": impl, "heads": h, "seq_len": 32, "median_ms": ms, "status": "ok", "device": "cpu",
                "device_name": "x", "dtype": "float32", "batch": 1, "d_model": 16, "peak_mem_bytes": 2**20}
               for h in (1, 2, 4, 8, 16) for impl, ms in (("naive", 2.0 * h), ("fused", 2.0))]
    (setup,) = summary.setups(records)
    said = summary.summarize(setup)
    assert [(s.key, s.params.get("heads")) for s in said] == [("hd.sum_mixed", 1), ("hd.sum_faster", 16),
                                                              ("hd.sum_memory", 16)]
    assert said[1].params["times"] == "16.00" and said[0].params["first"] == "1.00"


def test_a_gap_inside_the_runs_spread_names_no_winner():
    """Issue 37: "fused is 1.04x as fast" was a 4.5 % gap inside the run's 6.7 % spread."""
    def records(iqr):
        return [{"impl": impl, "heads": 2, "seq_len": n, "median_ms": ms, "iqr_ms": iqr * ms, "status": "ok",
                 "device": "cpu", "device_name": "x", "dtype": "float32", "batch": 1, "d_model": 8,
                 "peak_mem_bytes": None}
                for n in (32, 64) for impl, ms in (("naive", 1.045), ("fused", 1.0))]
    (noisy,) = summary.setups(records(0.067))
    (said,) = summary.summarize(noisy)
    assert said.key == "hd.sum_noise" and said.params["ratio"] == "1.04" and said.params["spread"] == "6.7"
    (quiet,) = summary.setups(records(0.01))
    assert summary.summarize(quiet)[0].key == "hd.sum_faster"  # the same gap, outside a 1 % spread
