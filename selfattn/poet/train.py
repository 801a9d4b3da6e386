"""Train the poet: ``python -m selfattn.poet.train`` (designed for under 3 minutes on two quiet CPU cores).

A decoder-only Transformer (:class:`selfattn.poet.torch_model.TinyPoet`) learns the training poems of the corpus
(:func:`selfattn.poet.corpus.read`) as a language model: at each position it is scored (cross-entropy) on the
next token, characters, the marks "，" "。" and ``<eos>`` alike. Poems of 4 and of 8 lines go in batches of one
length, so nothing is padded. The held-out poems are never trained on; their loss is measured at each checkpoint
and at the end.

Deterministic: one seed for the weights and the batches' order, two threads; the CPU kernels this model uses are
deterministic (torch's ``use_deterministic_algorithms`` is not needed, and importing it costs seconds), so the same
settings give the same losses and weights on the same machine and torch (tests/test_poet_model.py trains twice and
compares them bit for bit).

It writes beside this file ``model.npz`` (float16), ``model.json``, ``checkpoints.npz`` (a few earlier states, int8)
and ``record.json``: the settings, the times, the loss of every step, the held-out losses against the unigram and
bigram baselines (:mod:`selfattn.poet.measure`), and at each checkpoint its losses and the poem the same seed
writes with it, all measured on the files as written.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Callable

import numpy as np
import torch
from torch import nn

import selfattn.poet.corpus as corpus
import selfattn.poet.measure as measure
from selfattn.poet.torch_model import TinyPoet, arrays_of
from selfattn.poet.weights import (CHECKPOINTS_PATH, MODEL_JSON, RECORD_PATH, WEIGHTS_PATH, Config, Vocab, Weights,
                                   load_checkpoints, load_weights, save, save_checkpoints)

THREADS = 2
WATCHED = {"acrostic": "春夏秋冬", "seed": 0}  # the poem the record writes at each checkpoint (greedy off, T = 1)
SIZE_LIMIT = 2_000_000  # bytes: model.npz and checkpoints.npz together


@dataclass(frozen=True)
class TrainConfig:
    """How the model is trained."""

    seed: int = 0  # the weights' initialisation and the batches' order
    epochs: float = 1.0  # passes over the training poems (a fraction: the run stops part-way through the last)
    batch_size: int = 16  # poems a step (more, smaller steps learn more from one pass than fewer, larger ones)
    lr: float = 4e-3  # AdamW's peak learning rate
    warmup_steps: int = 40  # linear warm-up, then a cosine decay to lr / 10
    weight_decay: float = 0.01
    checkpoints: tuple[float, ...] = (0.0, 0.03, 0.12, 0.4)  # where the weights are kept, as fractions of the run


@dataclass(frozen=True, eq=False)
class Run:
    """What :func:`train` returns."""

    model: TinyPoet
    weights: Weights  # float64 copies of the final parameters
    losses: tuple[float, ...]  # the training loss of every step (nats per token)
    checkpoints: tuple[tuple[int, dict[str, np.ndarray]], ...]  # (step, parameters)
    steps: int
    train_s: float  # wall seconds in the optimisation loop
    cpu_s: float  # CPU seconds of the process in that loop (both threads)


def batches(poems: list[list[int]], batch_size: int, generator: torch.Generator) -> list[torch.Tensor]:
    """One epoch's batches: the poems of each length shuffled and cut into batches, the batches shuffled."""
    found = []
    for length in sorted({len(p) for p in poems}):
        group = torch.tensor([p for p in poems if len(p) == length])
        order = torch.randperm(len(group), generator=generator)
        found += [group[order[i:i + batch_size]] for i in range(0, len(group), batch_size)]
    return [found[i] for i in torch.randperm(len(found), generator=generator).tolist()]


def learning_rate(step: int, total: int, tc: TrainConfig) -> float:
    """Linear warm-up to ``tc.lr``, then a cosine down to ``tc.lr / 10`` at ``total``."""
    if step < tc.warmup_steps:
        return tc.lr * (step + 1) / tc.warmup_steps
    progress_ = (step - tc.warmup_steps) / max(1, total - tc.warmup_steps)
    return tc.lr * (0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress_))))


def progress(step: int, total: int, loss: float, started: float, width: int = 30) -> None:
    """One line on stderr, rewritten in place: a bar, the step, the loss, the seconds so far and left."""
    done = round(width * step / total)
    spent = time.perf_counter() - started
    left = spent / step * (total - step) if step else 0.0
    sys.stderr.write(f"\r[{'#' * done}{'.' * (width - done)}] step {step}/{total}  loss {loss:.3f}  "
                     f"{spent:.0f} s, about {left:.0f} s left ")
    sys.stderr.flush()


OnStep = Callable[[int, int, float], None]  # (steps done, steps in all, that step's loss)


def train(config: Config = Config(), tc: TrainConfig = TrainConfig(), *, show: bool = True,
          on_step: OnStep | None = None, poems: tuple[str, ...] | None = None, threads: int = THREADS) -> Run:
    """Train on the corpus's training poems (or ``poems``), deterministically; nothing is written.

    Args:
        show: draw the progress bar on stderr.
        on_step: called after every step; it draws no random numbers, so it changes nothing in the run.
        poems: train on these instead (a test's tiny run).
        threads: torch's threads (the same seed gives the same run for the same number of threads).
    """
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        return _train(config, tc, show, on_step, corpus.read().train if poems is None else poems)
    finally:  # leave the process as it was (tests share it)
        torch.set_num_threads(before)


def _train(config: Config, tc: TrainConfig, show: bool, on_step: OnStep | None, poems: tuple[str, ...]) -> Run:
    vocab = Vocab.of(poems, config.min_count)
    encoded = [vocab.encode(p) for p in poems]
    torch.manual_seed(tc.seed)
    model = TinyPoet(config, vocab)
    model.train()
    order = torch.Generator().manual_seed(tc.seed)
    decay = [p for p in model.parameters() if p.dim() == 2]  # matrices decay; biases, LayerNorms do not
    rest = [p for p in model.parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": tc.weight_decay},
                                   {"params": rest, "weight_decay": 0.0}], lr=tc.lr, betas=(0.9, 0.99))
    per_epoch = len(batches(encoded, tc.batch_size, torch.Generator().manual_seed(0)))
    total = max(1, round(tc.epochs * per_epoch))
    keep = sorted({min(total - 1, round(f * total)) for f in tc.checkpoints})
    checkpoints, losses, step = [], [], 0
    started, cpu_started = time.perf_counter(), time.process_time()
    while step < total:
        for batch in batches(encoded, tc.batch_size, order):
            if step in keep:
                checkpoints.append((step, arrays_of(model)))
            logits = model(batch[:, :-1])  # (B, n, V)
            loss = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), batch[:, 1:].reshape(-1))
            for group in optimizer.param_groups:
                group["lr"] = learning_rate(step, total, tc)
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            step += 1
            losses.append(loss.item())
            if show:
                progress(step, total, losses[-1], started)
            if on_step is not None:
                on_step(step, total, losses[-1])
            if step == total:
                break
    train_s, cpu_s = time.perf_counter() - started, time.process_time() - cpu_started
    if show:
        sys.stderr.write("\n")
    return Run(model=model, weights=Weights(config, vocab, arrays_of(model)), losses=tuple(losses),
               checkpoints=tuple(checkpoints), steps=total, train_s=train_s, cpu_s=cpu_s)


def record(run: Run, tc: TrainConfig, folder: Path) -> dict:
    """Write the run's files into ``folder`` and return the record, every loss and poem measured on the files as
    written (float16 weights, int8 checkpoints): the poems on our numpy core, the held-out losses of 883 poems on
    the float64 torch twin holding the same weights (the two agree to 1e-10; numpy takes minutes for them)."""
    from selfattn.poet.generate import generate
    from selfattn.poet.model import Poet

    paths = {"npz": folder / WEIGHTS_PATH.name, "json": folder / MODEL_JSON.name,
             "checkpoints": folder / CHECKPOINTS_PATH.name}
    save(run.weights, paths["npz"], paths["json"])
    save_checkpoints(list(run.checkpoints), paths["checkpoints"])
    size = sum(p.stat().st_size for k, p in paths.items() if k != "json")
    if size > SIZE_LIMIT:
        print(f"warning: model.npz and checkpoints.npz hold {size} bytes, over {SIZE_LIMIT}", file=sys.stderr)
    final = load_weights(paths["npz"], paths["json"])
    split = corpus.read()
    stored = {**load_checkpoints(paths["checkpoints"]), run.steps: final.arrays}
    looks = []
    for step, arrays in stored.items():
        poet = Poet.from_weights(Weights(final.config, final.vocab, arrays))
        poem = generate(poet, acrostic=WATCHED["acrostic"], seed=WATCHED["seed"])
        looks.append({"step": step, "epoch": round(step / run.steps * tc.epochs, 3),
                      "train_loss": round(float(np.mean(run.losses[max(0, step - 20):step + 1])), 4),
                      **{k: round(v, 4) for k, v in measure.held_out_loss(poet, split.held_out, "torch").items()},
                      "poem": poem.text})
    baselines = measure.baselines(final.vocab, split.train, split.held_out)
    found = {
        "settings": {"model": asdict(final.config), "training": asdict(tc)},
        "seed": tc.seed,
        "torch": torch.__version__,
        "threads": THREADS,
        "time_s": {"training": round(run.train_s, 1), "cpu": round(run.cpu_s, 1)},
        "steps": run.steps,
        "parameters": int(sum(p.numel() for p in run.model.parameters())),
        "vocabulary": len(final.vocab),
        "poems": {"train": len(split.train), "held_out": len(split.held_out)},
        "bytes": {"model.npz": paths["npz"].stat().st_size, "checkpoints.npz": paths["checkpoints"].stat().st_size},
        "loss_curve": [round(x, 4) for x in run.losses],
        "held_out": {**looks[-1], "baselines": baselines},
        "watched": WATCHED,
        "checkpoints": looks,
    }
    (folder / RECORD_PATH.name).write_text(json.dumps(found, ensure_ascii=False, separators=(",", ":")) + "\n",
                                           encoding="utf-8")
    return found


LIVE_EPOCHS = (0.02, 0.05, 0.1, 0.25, 0.5, 1.0)  # what the page offers; 1.0 is the shipped run (under 3 minutes)


@dataclass(frozen=True, eq=False)
class LiveRun:
    """A visitor's own run, trained in the page's process (:func:`train_live`); nothing is written to a file."""

    poet: object  # selfattn.poet.model.Poet: the weights in float64, ready for generate()
    epochs: float
    seed: int
    steps: int
    seconds: float  # wall seconds of the optimisation loop
    last_loss: float  # the mean training loss of its last 20 steps (nats per token)


def train_live(epochs: float, seed: int, on_step: OnStep | None = None, *,
               poems: tuple[str, ...] | None = None) -> LiveRun:
    """Train a model of the shipped size on two threads for ``epochs`` (one of :data:`LIVE_EPOCHS`: at most the
    shipped run) from ``seed``, for a page to write with; ``on_step`` sees the progress.

    Raises:
        InputError: ``poet_train_epochs`` or ``poet_seed`` for values the page does not offer.
    """
    from selfattn.errors import InputError
    from selfattn.poet.generate import MAX_SEED
    from selfattn.poet.model import Poet

    if isinstance(epochs, bool) or epochs not in LIVE_EPOCHS:
        raise InputError("poet_train_epochs", f"epochs {str(epochs)[:20]}", value=str(epochs)[:20],
                         options=", ".join(f"{e:g}" for e in LIVE_EPOCHS))
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise InputError("poet_seed", f"seed {str(seed)[:20]}", value=str(seed)[:20], limit=MAX_SEED)
    run = train(Config(), replace(TrainConfig(), epochs=float(epochs), seed=seed), show=False, on_step=on_step,
                poems=poems)
    return LiveRun(poet=Poet.from_weights(run.weights), epochs=float(epochs), seed=seed, steps=run.steps,
                   seconds=run.train_s, last_loss=float(np.mean(run.losses[-20:])))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m selfattn.poet.train", description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=float, default=TrainConfig.epochs)
    parser.add_argument("--seed", type=int, default=TrainConfig.seed)
    parser.add_argument("--batch-size", type=int, default=TrainConfig.batch_size)
    parser.add_argument("--d-model", type=int, default=Config.d_model)
    parser.add_argument("--layers", type=int, default=Config.layers)
    parser.add_argument("--out", type=Path, default=WEIGHTS_PATH.parent, help="folder for the four files")
    args = parser.parse_args(argv)
    tc = replace(TrainConfig(), epochs=args.epochs, seed=args.seed, batch_size=args.batch_size)
    config = replace(Config(), d_model=args.d_model, d_ff=4 * args.d_model, layers=args.layers)
    run = train(config, tc)
    args.out.mkdir(parents=True, exist_ok=True)
    found = record(run, tc, args.out)
    held = found["held_out"]
    print(f"trained {run.steps} steps in {found['time_s']['training']} s ({found['time_s']['cpu']} CPU s); "
          f"held-out {held['val_loss']:.3f} nats a character (unigram {held['baselines']['unigram']:.3f}, "
          f"bigram {held['baselines']['bigram']:.3f}); {found['parameters']} parameters")
    for look in found["checkpoints"]:
        print(f"  step {look['step']:>5}  held-out {look['val_loss']:.3f}  {look['poem']}")


if __name__ == "__main__":
    main()
