"""Benchmark the sentence-embedding core: model load, character-table build/load, embed().

Usage:
    python benchmarks/bench_embeddings.py [--repeats 20] [--cold-runs 3] [--json out.json] [--markdown out.md]

What is timed (wall clock, ``time.perf_counter``):

* cold MiniLM load: a fresh Python subprocess per run, timed inside it from just before
  ``import torch`` (with ``tokenizers`` and ``safetensors``) to a loaded model ("import +
  load") and from after the imports to a loaded model ("load only"). MiniLM runs on
  ``selfattn.text.bert``; the script checks that transformers was never imported;
* char-vector build with no cache (in process), and loading the cached .npz, both in process
  (memory cache cleared) and in a fresh subprocess (dictionary hash + file read);
* ``embed()`` per source on short sentences (<= 32 tokens), after one warm-up call each.

Each figure is the median with min and max over the runs. Targets: cold model load <= 3 s,
char vectors built <= 5 s, loaded from cache <= 0.5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SENTENCES_EN = [
    "Good morning",
    "The cat sat on the mat because it was warm.",
    "I sat by the river bank and watched the water.",
    "Self-attention lets every token look at every other token in the sentence.",
    "She opened a bank account before the meeting started this morning.",
]
SENTENCES_ZH = ["早上好", "早上好，今天天气很好", "我喜欢在下雨天读书。", "自注意力让每个字都能看到句子里的其他字。",
                "猫和狗在院子里玩了一下午，直到太阳落山。"]

COLD_MODEL = """
import json, time
t0 = time.perf_counter()
import torch, tokenizers, safetensors.torch
t1 = time.perf_counter()
from selfattn.text.models import load_model
bundle = load_model("minilm")
t2 = time.perf_counter()
assert type(bundle.model).__name__ == "BertEncoder", type(bundle.model)  # selfattn.text.bert, not transformers
assert "transformers" not in __import__("sys").modules
print(json.dumps({"import": t1 - t0, "load": t2 - t1, "total": t2 - t0}))
"""

COLD_CHARVEC = """
import json, time
t0 = time.perf_counter()
from selfattn.text.charvec import load_char_vectors
t1 = time.perf_counter()
table = load_char_vectors()
t2 = time.perf_counter()
assert table.origin == "file", table.origin
print(json.dumps({"import": t1 - t0, "load": t2 - t1}))
"""


def summary(samples: list[float]) -> dict:
    """Median, min, max and count of a list of seconds."""
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples), "n": len(samples)}


def in_subprocess(code: str, cache_dir: str) -> dict:
    """Run ``code`` in a fresh interpreter and parse the JSON it prints last."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))  # keep the caller's own
    env = dict(os.environ, SELFATTN_CACHE_DIR=cache_dir, PYTHONPATH=path)
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def bench_cold_model(runs: int, cache_dir: str) -> dict:
    results = [in_subprocess(COLD_MODEL, cache_dir) for _ in range(runs)]
    return {key: summary([r[key] for r in results]) for key in ("import", "load", "total")}


def bench_charvec(runs: int, cache_dir: str) -> dict:
    from selfattn.text import charvec

    builds = []
    for _ in range(runs):
        start = time.perf_counter()
        table = charvec.build_char_vectors()
        builds.append(time.perf_counter() - start)
    charvec.save_char_vectors(table, charvec.cache_file(table.key, Path(cache_dir)))
    loads = []
    for _ in range(max(runs, 5)):
        charvec.clear_memory_cache()
        start = time.perf_counter()
        loaded = charvec.load_char_vectors(folder=Path(cache_dir))
        loads.append(time.perf_counter() - start)
        assert loaded.origin == "file"
    cold = [in_subprocess(COLD_CHARVEC, cache_dir)["load"] for _ in range(runs)]
    return {"build": summary(builds), "load_cached": summary(loads), "load_cached_fresh_process": summary(cold),
            "chars": len(table), "dim": table.dim}


def bench_embed(repeats: int) -> dict:
    from selfattn.text.embeddings import embed

    cases = {
        "minilm static": (SENTENCES_EN, {"source": "minilm"}),
        "minilm contextual": (SENTENCES_EN, {"source": "minilm", "kind": "contextual"}),
        "charvec": (SENTENCES_ZH, {"source": "charvec"}),
        "auto (zh, + jieba words)": (SENTENCES_ZH, {"source": "auto"}),
    }
    out = {}
    for name, (sentences, kwargs) in cases.items():
        for sentence in sentences:  # warm-up: model/table loaded, jieba initialised
            assert len(embed(sentence, **kwargs).tokens) <= 32
        samples = []
        for i in range(repeats):
            start = time.perf_counter()
            embed(sentences[i % len(sentences)], **kwargs)
            samples.append(time.perf_counter() - start)
        out[name] = summary(samples)
    return out


def environment() -> dict:
    import numpy
    import torch
    import transformers

    return {"python": platform.python_version(), "platform": platform.platform(), "cpus": os.cpu_count(),
            "torch": torch.__version__, "torch_threads": torch.get_num_threads(),
            "transformers": transformers.__version__, "numpy": numpy.__version__}


def to_markdown(results: dict) -> str:
    targets = {"cold model: import + load": 3.0, "char vectors: build": 5.0, "char vectors: load cached": 0.5,
               "char vectors: load cached (fresh process)": 0.5}
    rows = [("cold model: import + load", results["cold_model"]["total"]),
            ("cold model: import only", results["cold_model"]["import"]),
            ("cold model: load only", results["cold_model"]["load"]),
            ("char vectors: build", results["charvec"]["build"]),
            ("char vectors: load cached", results["charvec"]["load_cached"]),
            ("char vectors: load cached (fresh process)", results["charvec"]["load_cached_fresh_process"])]
    rows += [(f"embed(): {name}", stats) for name, stats in results["embed"].items()]
    lines = ["| what | median | min | max | runs | target |", "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for name, s in rows:
        target = f"<= {targets[name]} s" if name in targets else ""
        lines.append(f"| {name} | {fmt(s['median'])} | {fmt(s['min'])} | {fmt(s['max'])} | {s['n']} | {target} |")
    env = results["environment"]
    lines.append("")
    lines.append(f"Python {env['python']}, torch {env['torch']} ({env['torch_threads']} threads), transformers "
                 f"{env['transformers']}, {env['cpus']} CPUs, {env['platform']}.")
    return "\n".join(lines) + "\n"


def fmt(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20, help="embed() calls timed per source (>= 20)")
    parser.add_argument("--cold-runs", type=int, default=3, help="fresh subprocesses / builds per cold figure")
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    parser.add_argument("--markdown", type=Path, help="also write a markdown table here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="selfattn-bench-") as cache_dir:
        os.environ["SELFATTN_CACHE_DIR"] = cache_dir  # never read or touch the user's cache
        results = {"cold_model": bench_cold_model(args.cold_runs, cache_dir),
                   "charvec": bench_charvec(args.cold_runs, cache_dir),
                   "embed": bench_embed(args.repeats),
                   "environment": environment()}
    table = to_markdown(results)
    print(table)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    if args.markdown:
        args.markdown.write_text(table, encoding="utf-8")


if __name__ == "__main__":
    main()
