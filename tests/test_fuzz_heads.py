"""A seeded random walk over Heads & devices (issue 14): every widget, sentences, panels, tiny benchmarks, uploads.

Besides :func:`tests.fuzz.check_page` after every action: whenever the comparison could not be
computed, the last good one stays with a note saying so; the results area always shows its
tables or a message; an upload leaves one message, about the file just chosen. Benchmarks run
with tiny settings (n = 32, d_model = 64, a few hundredths of a second per run).
"""

from __future__ import annotations

import json

import pytest

from selfattn import bench
from selfattn.core.heads import MISTAKES
from selfattn.i18n import t
from support import apptest
from tests import fuzz
from selfattn.bench.view import PARTS
from ui.heads import page as hd


def _record(**changes) -> dict:
    record = {"impl": "fused", "heads": 2, "head_dim": 32, "device": "cuda", "device_name": "GPU", "dtype": "float16",
              "batch": 1, "seq_len": 128, "d_model": 64, "median_ms": 0.5, "iqr_ms": 0.01, "runs": 10, "flops": 1,
              "gflops": 1.0, "peak_mem_bytes": 1000, "peak_mem_kind": "allocator", "est_mem_bytes": 1000,
              "torch_version": "2", "num_threads": 1, "status": "ok", "error_code": "", "error": ""}
    record.update(changes)
    return record


class HeadsWalk(fuzz.Walk):
    page = name = "heads"
    title_key = "hd.title"
    restart_every = 50  # a fresh session goes back to 6 tokens: 64 tokens × 16 heads cost 0.7 s a run
    parts, part_key = PARTS, "hd_part"

    def moves(self):
        return [(2, self.toggle), (3, self.number), (4, self.choose), (2, self.multichoose), (3, self.sentence),
                (2, self.panel), (1, self.benchmark), (3, self.upload), (1, self.switch_language), (0.5, self.rerun),
                (3, self.switch_part)]

    def extra_options(self):
        return [*hd.D_CHOICES, *hd.SEQ_CHOICES, *hd.BENCH_D_CHOICES, *hd.BENCH_HEADS, *bench.DTYPES, *bench.IMPLS,
                "cpu", "cuda", *hd.bundled_results()]

    def has_result(self, at) -> bool:
        """The open part's result: the maps, the checks' figures, or the benchmark's (checked in :meth:`check`)."""
        part = at.session_state["hd_part"] if "hd_part" in at.session_state else PARTS[0]
        if part == "bench":
            return True
        if part == "check":
            return "hd_good" in at.session_state and len(at.metric) >= 2
        return "hd_good" in at.session_state and bool(at.get("vega_lite_chart"))

    def forget(self) -> None:
        self.good = None

    def remember(self) -> None:
        self.good = self.at.session_state["hd_good"] if "hd_good" in self.at.session_state else None

    def check(self) -> None:
        at, lang = self.at, fuzz.lang_of(self.at)
        part = self.part()
        found = {str(w.key) for w in fuzz.everything(at) if getattr(w, "key", None)}
        ran = {"compare": "hd_seed" in found, "check": bool(at.metric), "bench": "hd_run" in found}
        assert [p for p, yes in ran.items() if yes] == [part], ("only the open part runs", part, ran)
        if self.good is not None and part != "bench":  # once shown, a comparison is never lost
            assert "hd_good" in at.session_state
            if at.session_state["hd_good"] is self.good:  # not computed in this run: the page says why
                notes = [text for _, text in fuzz.alerts(at.main) if fuzz.kept_note(lang) in text]
                assert notes, "the comparison was not recomputed, and no message says why"
        if part != "bench":
            return
        results = ("hd_bench" in at.session_state or "hd_uploaded" in at.session_state
                   or bool(at.session_state["hd_bundled"]))
        if results:
            tables = [d for d in at.dataframe if d.editing_mode == "read_only"]
            assert tables, "results are kept but no table shows them"
        else:
            assert any(text == t("hd.bench_empty", lang) for _, text in fuzz.alerts(at.main))
        box = next(e for e in at.main.expander if e.label == t("hd.upload", lang))
        assert len(fuzz.alerts(box)) <= 1, ("more than one upload message", fuzz.alerts(box))

    def sentence(self) -> str:
        """Type a sentence (its box shows once "A sentence's vectors" is the input)."""
        self.open_part("compare")
        if self.at.session_state["hd_input"] != "sentence":
            widget = next(w for w in self.at.selectbox if w.key.startswith("hd_input__"))
            widget.set_value("sentence").run()
            self.log.append("      input -> sentence")
        return self.type_text()

    def panel(self) -> str:
        """Open or close one of the mistake panels (AppTest cannot click an expander: its state is set)."""
        self.open_part("check")
        mistake = self.rng.choice(MISTAKES)
        key = f"hd_open_{mistake}"
        opened = list(self.at.session_state["hd_open"])
        value = mistake not in opened
        self.at.session_state[key] = value
        self.at.session_state["hd_open"] = [m for m in MISTAKES if (m in opened or (value and m == mistake))
                                            and not (m == mistake and not value)]
        self.at.run()
        return f"panel {mistake} -> {value}"

    def benchmark(self) -> str:
        """Click Run with tiny settings, sometimes with an empty chooser (refused in words)."""
        self.open_part("bench")
        at, rng = self.at, self.rng
        at.selectbox(key="hd_bench_d").set_value(64)
        at.number_input(key="hd_batch").set_value(1)
        at.multiselect(key="hd_bench_lens").set_value(rng.choice([[32], [32], []]))
        at.multiselect(key="hd_bench_heads").set_value(rng.sample([1, 2, 4], rng.randint(0, 2)))
        impls = list(bench.IMPLS)
        at.multiselect(key="hd_bench_impls").set_value(rng.sample(impls, rng.randint(0, 2)))
        at.run()
        settings = {k: at.session_state[k] for k in ("hd_bench_lens", "hd_bench_heads", "hd_bench_impls",
                                                     "hd_dtype", "hd_device")}
        at.button(key="hd_run").click().run(timeout=300)
        return f"benchmark {settings}"

    def upload_file(self) -> tuple[str, str, bytes]:
        rng = self.rng
        bundled = hd.bundled_results()
        records = next(iter(bundled.values())) if bundled else [_record()]
        kind = rng.choice(["json", "csv", "list", "big", "bad_json", "deep", "long_number", "not_records", "empty",
                           "missing", "bad_value", "not_finite", "nan", "not_divisor", "formula", "utf16",
                           "binary", "bad_csv", "ragged", "too_many", "null", "txt", "bom"])
        name = f"r{rng.randrange(100)}.{'csv' if kind in ('csv', 'bad_csv', 'ragged', 'formula') else 'json'}"
        one = [_record()]
        data = {
            "json": lambda: bench.records_to_json(records).encode(),
            "csv": lambda: bench.records_to_csv(records).encode(),
            "list": lambda: json.dumps(one).encode(),
            "big": lambda: b" " * (bench.RESULTS_MAX_BYTES + rng.randint(1, 1000)),
            "bad_json": lambda: b"{not json",
            "deep": lambda: b"[" * 100_000,
            "long_number": lambda: b"[" + b"1" * 5000 + b"]",
            "not_records": lambda: b'{"records": 5}',
            "empty": lambda: b"[]",
            "missing": lambda: json.dumps([{"impl": "fused"}]).encode(),
            "bad_value": lambda: json.dumps([_record(impl=rng.choice(["../../etc/passwd", "=1+1", 5, None]))]).encode(),
            "not_finite": lambda: b'[{"median_ms": Infinity}]',
            "nan": lambda: bench.records_to_json(one).replace('0.5', 'NaN').encode(),
            "not_divisor": lambda: json.dumps([_record(heads=3)]).encode(),
            "formula": lambda: bench.records_to_csv([_record(device_name='=HYPERLINK("http://x")', error="+cmd",
                                                             torch_version="@SUM(A1)")]).encode(),
            "utf16": lambda: bench.records_to_json(one).encode("utf-16"),
            "binary": lambda: bytes(rng.randrange(256) for _ in range(300)),
            "bad_csv": lambda: b'impl,heads\n"fused,2\n',
            "ragged": lambda: bench.records_to_csv(one).encode() + b"1,2\n",
            "too_many": lambda: json.dumps([_record()] * 2001).encode(),
            "null": lambda: b"null",
            "txt": lambda: b"hello",
            "bom": lambda: b"\xef\xbb\xbf" + bench.records_to_json(one).encode(),
        }[kind]()
        if kind == "txt":
            name = rng.choice(["r.JSON", "../../etc/passwd.json", "结果.csv", "x" * 200 + ".json"])
        return kind, name, data

    def upload(self) -> str:
        self.open_part("bench")
        if self.rng.random() < 0.1 and self.at.get("file_uploader"):  # the box closed: its uploader is no longer made
            apptest.click_expander(self.at, "hd_upload_panel", opened=False)
            return "upload box closed"
        uploader = apptest.open_folded(self.at, "hd_upload_panel").get("file_uploader")[0]
        if self.rng.random() < 0.1:
            uploader.clear().run()
            return "upload cleared"
        kind, name, data = self.upload_file()
        uploader.set_value((name, data, "application/octet-stream")).run()
        box = next(e for e in self.at.main.expander if e.label == t("hd.upload", fuzz.lang_of(self.at)))
        assert len(fuzz.alerts(box)) == 1, ("one message about the file just chosen", fuzz.alerts(box))
        return f"upload {kind} ({len(data)} bytes) as {name[:40]!r}"

    def click(self) -> str:
        return super().click(skip=("hd_run",))  # the benchmark runs through self.benchmark, with tiny settings


@pytest.mark.parametrize("seed", fuzz.seeds(1))
def test_random_visitor_actions_never_crash_the_heads_page(seed, monkeypatch):
    monkeypatch.setattr(hd, "MIN_RUN_TIME", 0.01)  # seconds of timing per benchmark run
    HeadsWalk(seed).run()
