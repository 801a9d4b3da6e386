"""Train the translator: ``python -m selfattn.translate.train`` (about half a minute on two CPU cores).

An encoder–decoder (:class:`selfattn.translate.torch_model.Seq2Seq`) learns the corpus's training sentences by
teacher forcing: the decoder reads ``<bos>`` and the English words so far and is scored (cross-entropy with label
smoothing) on the next word, ``<eos>`` last. Nothing tells it where to look: whatever alignment its
cross-attention shows is learned from the translations alone. The held-out sentences (:data:`corpus.HELD_OUT`)
are never trained on; they are only translated, at each checkpoint and at the end.

Deterministic: one seed for the weights and the batch order, one thread, torch's deterministic algorithms; the
same settings give the same losses and the same weights, bit for bit, on the same torch.

It writes beside this file ``model.npz`` (the weights, float32), ``model.json`` (settings, vocabularies) and
``record.json``: the settings, the time taken, the loss of every epoch, the held-out exact-match accuracy as the
committed files give it on our numpy core, and at about 20 checkpoints the training and held-out losses, the
held-out accuracy and, for a few fixed sentences, the greedy translation with its cross-attention
(decoder layers × heads × words × source characters).

:func:`train_live` is a visitor's own run on the Encoder–decoder page: the settings they may choose
(:class:`LiveSettings`, bounded by :func:`live_plan`), no checkpoints, nothing written, the held-out score measured.
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

from selfattn.errors import InputError
from selfattn.translate import corpus
from selfattn.translate.infer import Translator, load, translate
from selfattn.translate.torch_model import Seq2Seq, arrays_of
from selfattn.translate.weights import (BOS, EOS, MODEL_JSON, RECORD_PATH, WEIGHTS_PATH, Config, Vocab, Weights,
                                        save)

WATCHED = ("早上好", "狗咬人", "人咬狗", "马追狗")  # the sentences whose cross-attention the record keeps (马追狗: held out)
DIGITS = 4  # of the recorded attention weights


@dataclass(frozen=True)
class TrainConfig:
    """How the model is trained."""

    seed: int = 0  # the weights' initialisation and the batches' order
    epochs: int = 120
    batch_size: int = 16
    lr: float = 3e-3  # Adam's peak learning rate
    warmup_steps: int = 60  # linear warm-up, then a cosine decay to 0
    label_smoothing: float = 0.1
    checkpoints: int = 20  # how many times the record looks at the model (step 0 and the last included, denser early)


@dataclass(frozen=True, eq=False)
class Run:
    """What :func:`train` returns."""

    model: Seq2Seq
    trained_on: tuple[str, ...]  # the Chinese of every sentence the optimiser saw
    weights: Weights  # float64 copies of the final parameters
    losses: tuple[float, ...]  # the mean training loss of each epoch
    checkpoints: tuple[dict, ...]
    train_s: float  # seconds in the optimisation loop alone
    total_s: float  # seconds in all, checkpoints included


def split(pairs) -> tuple[list, list]:
    """(the training sentences, the held-out ones): the held-out never reach the optimiser."""
    return [p for p in pairs if not p.held_out], [p for p in pairs if p.held_out]


def tensors(pairs, vocab: Vocab) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Padded id tensors: the source (N, n), the decoder's input ``<bos> w₁ … w_k`` and its target ``w₁ … w_k
    <eos>`` (N, k + 1); padding is id 0."""
    src_id, tgt_id = vocab.source_id(), vocab.target_id()
    src = [[src_id[ch] for ch in corpus.source_tokens(p.zh)] for p in pairs]
    tgt = [[tgt_id[w] for w in corpus.target_tokens(p.en)] for p in pairs]
    n, k = max(map(len, src)), max(map(len, tgt)) + 1

    def padded(rows: list[list[int]], width: int) -> torch.Tensor:
        return torch.tensor([row + [0] * (width - len(row)) for row in rows])

    return (padded(src, n), padded([[tgt_id[BOS], *row] for row in tgt], k),
            padded([[*row, tgt_id[EOS]] for row in tgt], k))


def learning_rate(step: int, total: int, tc: TrainConfig) -> float:
    """Linear warm-up to ``tc.lr``, then a cosine down to 0 at ``total``."""
    if step < tc.warmup_steps:
        return tc.lr * (step + 1) / tc.warmup_steps
    return tc.lr * 0.5 * (1.0 + math.cos(math.pi * (step - tc.warmup_steps) / max(1, total - tc.warmup_steps)))


def checkpoint_steps(total: int, count: int) -> list[int]:
    """``count`` steps from 0 to ``total``, spaced as squares (0, 1/361, 4/361 … of the way), denser at the start
    where the model changes fastest (fewer if rounding makes two equal)."""
    return sorted({round(total * (i / max(1, count - 1)) ** 2) for i in range(count)})


def exact_match(translator: Translator, pairs) -> tuple[float, list[dict]]:
    """The share of ``pairs`` whose greedy translation on our core is exactly the reference, and each result."""
    results = []
    for p in pairs:
        output = translate(translator, p.zh).output
        results.append({"zh": p.zh, "en": p.en, "output": output, "correct": output == p.en})
    return sum(r["correct"] for r in results) / len(results), results


def look(model: Seq2Seq, vocab: Vocab, config: Config, data: dict, held_out, step: int, epoch: float) -> dict:
    """One checkpoint: the losses (no dropout, no smoothing), held-out accuracy and the watched sentences."""
    model.eval()
    losses = {}
    with torch.no_grad():
        for name, (src, tgt_in, tgt_out) in data.items():
            logits = model(src, src == 0, tgt_in)
            losses[name] = float(nn.functional.cross_entropy(logits.transpose(1, 2), tgt_out, ignore_index=0))
    model.train()
    translator = Translator.from_weights(Weights(config, vocab, arrays_of(model)))
    accuracy, _ = exact_match(translator, held_out)
    watched = {}
    for zh in WATCHED:
        t = translate(translator, zh)
        watched[zh] = {"source": list(t.source), "tokens": list(t.tokens),
                       "cross_weights": np.round(t.cross_weights, DIGITS).tolist()}
    return {"step": step, "epoch": round(epoch, 3), "train_loss": round(losses["train"], 5),
            "held_out_loss": round(losses["held_out"], 5), "held_out_accuracy": accuracy, "sentences": watched}


def progress(epoch: int, epochs: int, loss: float, started: float, width: int = 30) -> None:
    """One line on stderr, rewritten in place: a bar, the epoch, the loss, the seconds so far."""
    done = round(width * epoch / epochs)
    sys.stderr.write(f"\r[{'#' * done}{'.' * (width - done)}] epoch {epoch}/{epochs}  loss {loss:.4f}  "
                     f"{time.perf_counter() - started:.1f} s")
    sys.stderr.flush()


OnEpoch = Callable[[int, int, float], None]  # (epochs done, epochs in all, that epoch's mean loss)


def train(config: Config = Config(), tc: TrainConfig = TrainConfig(), *, show: bool = True,
          on_epoch: OnEpoch | None = None) -> Run:
    """Train on the corpus's training sentences, deterministically; nothing is written.

    Args:
        show: draw the progress bar on stderr.
        on_epoch: called after every epoch with (epochs done, epochs, the epoch's mean loss); it draws no random
            numbers, so it changes nothing in the run.

    Returns:
        Run with the trained model (float32), its weights, the loss of every epoch and the checkpoints.
    """
    threads, deterministic = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    try:
        return _train(config, tc, show, on_epoch)
    finally:  # leave the process as it was (tests share it)
        torch.set_num_threads(threads)
        torch.use_deterministic_algorithms(deterministic)


def _train(config: Config, tc: TrainConfig, show: bool, on_epoch: OnEpoch | None) -> Run:
    started = time.perf_counter()
    training, held_out = split(corpus.read())
    vocab = Vocab.of(training)  # the held-out sentences use only words and characters seen in training
    data = {"train": tensors(training, vocab), "held_out": tensors(held_out, vocab)}
    src, tgt_in, tgt_out = data["train"]
    torch.manual_seed(tc.seed)
    model = Seq2Seq(config, vocab)
    model.train()
    order = torch.Generator().manual_seed(tc.seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=tc.lr, betas=(0.9, 0.98))
    loss_fn = nn.CrossEntropyLoss(ignore_index=0, label_smoothing=tc.label_smoothing)
    batches = math.ceil(len(training) / tc.batch_size)
    total = tc.epochs * batches
    looks = checkpoint_steps(total, tc.checkpoints)
    checkpoints, losses, looking, step = [], [], 0.0, 0
    for epoch in range(tc.epochs + 1):
        if step in looks:
            began = time.perf_counter()
            checkpoints.append(look(model, vocab, config, data, held_out, step, step / batches))
            looking += time.perf_counter() - began
        if epoch == tc.epochs:
            break
        perm = torch.randperm(len(training), generator=order)
        epoch_loss = 0.0
        for b in range(batches):
            rows = perm[b * tc.batch_size:(b + 1) * tc.batch_size]
            logits = model(src[rows], src[rows] == 0, tgt_in[rows])  # (B, k, V)
            loss = loss_fn(logits.transpose(1, 2), tgt_out[rows])
            for group in optimizer.param_groups:
                group["lr"] = learning_rate(step, total, tc)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            epoch_loss += loss.item() * len(rows)
            if step in looks and b < batches - 1:  # a checkpoint inside an epoch
                began = time.perf_counter()
                checkpoints.append(look(model, vocab, config, data, held_out, step, step / batches))
                looking += time.perf_counter() - began
        losses.append(epoch_loss / len(training))
        if show:
            progress(epoch + 1, tc.epochs, losses[-1], started)
        if on_epoch is not None:
            on_epoch(epoch + 1, tc.epochs, losses[-1])
    if show:
        sys.stderr.write("\n")
    total_s = time.perf_counter() - started
    return Run(model=model, trained_on=tuple(p.zh for p in training), weights=Weights(config, vocab, arrays_of(model)),
               losses=tuple(losses), checkpoints=tuple(checkpoints), train_s=total_s - looking, total_s=total_s)


# ── A run in a visitor's process (the Encoder–decoder page, locally only) ──────────────────

@dataclass(frozen=True)
class LiveSettings:
    """What a visitor may choose for a run of their own: kept within :data:`LIVE_EPOCHS`, :data:`LIVE_D_MODELS`,
    :data:`LIVE_LAYERS`, :data:`LIVE_SEEDS` and :data:`LIVE_MAX_WORK`."""

    epochs: int = 60
    d_model: int = 16  # d_ff is twice this; always 4 heads
    layers: int = 1  # on each side: encoder and decoder
    seed: int = 0

    @property
    def work(self) -> int:
        """epochs × d_model × layers: what a run costs, near enough (the shipped run, 120 × 32 × 2, is 7,680)."""
        return self.epochs * self.d_model * self.layers


LIVE_EPOCHS = range(10, 201)
LIVE_D_MODELS = (16, 32, 48)
LIVE_LAYERS = (1, 2)
LIVE_SEEDS = range(0, 1000)
# 200 epochs at d_model 32 with 2 + 2 layers: the shipped run (7,680) trains in 11 s on an idle core, 28 s with the
# other core busy, so this stays under a minute either way
LIVE_MAX_WORK = 12_800
LIVE_CHECKPOINTS = 0  # a live run takes no checkpoints: "How it learned" shows the shipped record


def live_plan(live: LiveSettings) -> tuple[Config, TrainConfig]:
    """The model and training settings of a visitor's run.

    Raises:
        InputError: ``tr_train_bounds`` (a setting outside what is offered) or ``tr_train_too_big`` (epochs ×
            d_model × layers over :data:`LIVE_MAX_WORK`).
    """
    offered = {"epochs": (live.epochs, LIVE_EPOCHS), "d_model": (live.d_model, LIVE_D_MODELS),
               "layers": (live.layers, LIVE_LAYERS), "seed": (live.seed, LIVE_SEEDS)}
    for name, (value, allowed) in offered.items():
        if value not in allowed:
            raise InputError("tr_train_bounds", f"{name} = {value} is not offered for a run here",
                             name=name, value=value)
    if live.work > LIVE_MAX_WORK:
        raise InputError("tr_train_too_big", f"{live.epochs} epochs × d_model {live.d_model} × {live.layers} "
                         f"layers = {live.work} is over the limit of {LIVE_MAX_WORK}; take fewer epochs or a smaller "
                         "model", epochs=live.epochs, d=live.d_model, layers=live.layers, work=live.work,
                         limit=LIVE_MAX_WORK, most=LIVE_MAX_WORK // (live.d_model * live.layers))
    config = replace(Config(), d_model=live.d_model, d_ff=2 * live.d_model, encoder_layers=live.layers,
                     decoder_layers=live.layers)
    return config, replace(TrainConfig(), epochs=live.epochs, seed=live.seed, checkpoints=LIVE_CHECKPOINTS)


@dataclass(frozen=True, eq=False)
class LiveRun:
    """A visitor's run, ready to translate with: it lives in their session and is never written to a file."""

    settings: LiveSettings
    translator: Translator  # its weights on our core, float64
    losses: tuple[float, ...]  # the mean training loss of each epoch
    seconds: float  # the optimisation loop's
    held_out_right: int  # exact matches among the held-out sentences (never trained on)
    held_out_total: int


def train_live(live: LiveSettings, on_epoch: OnEpoch | None = None) -> LiveRun:
    """Train a model of ``live``'s settings (deterministic: the same settings give the same losses) and measure it
    on the held-out sentences; nothing is written.

    Raises:
        InputError: see :func:`live_plan`.
    """
    config, tc = live_plan(live)
    run = train(config, tc, show=False, on_epoch=on_epoch)
    translator = Translator.from_weights(run.weights)
    _, held_out = split(corpus.read())
    _, results = exact_match(translator, held_out)
    return LiveRun(settings=live, translator=translator, losses=run.losses, seconds=run.train_s,
                   held_out_right=sum(r["correct"] for r in results), held_out_total=len(results))


def record(run: Run, tc: TrainConfig, folder: Path) -> dict:
    """Write the run's files into ``folder`` and return the record, whose accuracies are measured on the files as
    written (float32 weights, read back into our float64 core)."""
    save(run.weights, folder / WEIGHTS_PATH.name, folder / MODEL_JSON.name)
    translator = load(folder / WEIGHTS_PATH.name, folder / MODEL_JSON.name)
    training, held_out = split(corpus.read())
    held_accuracy, held_results = exact_match(translator, held_out)
    train_accuracy, _ = exact_match(translator, training)
    found = {
        "settings": {"model": asdict(run.weights.config), "training": asdict(tc)},
        "seed": tc.seed,
        "torch": torch.__version__,
        "threads": 1,
        "time_s": {"training": round(run.train_s, 2), "with_checkpoints": round(run.total_s, 2)},
        "parameters": int(sum(p.numel() for p in run.model.parameters())),
        "sentences": {"train": len(training), "held_out": len(held_out)},
        "loss_curve": [round(x, 5) for x in run.losses],
        "held_out": {"accuracy": held_accuracy, "results": held_results},
        "train_accuracy": train_accuracy,
        "watched": list(WATCHED),
        "checkpoints": list(run.checkpoints),
    }
    (folder / RECORD_PATH.name).write_text(json.dumps(found, ensure_ascii=False, separators=(",", ":")) + "\n",
                                           encoding="utf-8")
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m selfattn.translate.train", description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=TrainConfig.epochs)
    parser.add_argument("--seed", type=int, default=TrainConfig.seed)
    parser.add_argument("--out", type=Path, default=WEIGHTS_PATH.parent, help="folder for the three files")
    args = parser.parse_args(argv)
    tc = replace(TrainConfig(), epochs=args.epochs, seed=args.seed)
    run = train(Config(), tc)
    args.out.mkdir(parents=True, exist_ok=True)
    found = record(run, tc, args.out)
    print(f"trained in {found['time_s']['training']} s ({found['time_s']['with_checkpoints']} s with "
          f"{len(run.checkpoints)} checkpoints); final loss {run.losses[-1]:.4f}; "
          f"training accuracy {found['train_accuracy']:.3f}; held-out exact match "
          f"{sum(r['correct'] for r in found['held_out']['results'])}/{len(found['held_out']['results'])}")
    for r in found["held_out"]["results"]:
        print(f"  {r['zh']}  {r['output']!r}  {'ok' if r['correct'] else 'expected ' + repr(r['en'])}")


if __name__ == "__main__":
    main()
