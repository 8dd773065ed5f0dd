"""The multi-label demo: simulated customer messages tagged with topics (label sets), and six systems.

Each message has one to three of eight topics with skewed shares (``billing`` common, ``fraud`` rare). One
simulated model gives every topic a score: higher when the topic is in the gold set, with noise that one latent
difficulty per message shares across topics; the systems read that model differently, as evaluations meet them:

- ``model-scores``: the model's per-topic scores themselves (a column per topic); the audit thresholds them at 0.5
  (the default, said so) and shows every metric against the threshold;
- ``threshold-0.3``: topics scoring at least 0.3 (larger sets, more recall);
- ``top1``: only the highest-scoring topic (exactly one label per message);
- ``tuned``: a lower threshold for rare topics (macro F1's friend, larger sets);
- ``majority-set``: gold's most frequent set for every message;
- ``prior-sampler``: sets drawn from gold's set distribution, ignoring the message.
"""
from __future__ import annotations

import numpy as np

from auditor.demo.run import Demo

TOPICS = ("billing", "delivery", "account", "refund", "product", "technical", "complaint", "fraud")
SHARES = np.array([0.42, 0.30, 0.22, 0.16, 0.12, 0.08, 0.05, 0.015])
SIZE = 3000
MIN_SIZE = 100
UNIT = "messages"
#: The tuned system's threshold per topic (lower for rarer topics).
TUNED = np.array([0.40, 0.40, 0.35, 0.30, 0.30, 0.25, 0.20, 0.12])


def simulate(seed: int, size: int) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """(gold bits, the model's scores, system name -> bits), items × topics."""
    rng = np.random.default_rng([seed, 33])
    gold = rng.random((size, len(TOPICS))) < SHARES
    empty = ~gold.any(axis=1)
    gold[empty, rng.choice(len(TOPICS), size=int(empty.sum()), p=SHARES / SHARES.sum())] = True
    difficulty = rng.normal(size=(size, 1))
    logits = np.where(gold, 0.3, -2.4) + 1.3 * rng.normal(size=gold.shape) + 0.6 * difficulty * np.where(gold, -1, 1)
    scores = np.round(1 / (1 + np.exp(-logits)), 4)
    top1 = np.zeros_like(gold)
    top1[np.arange(size), scores.argmax(axis=1)] = True
    keys = gold @ (1 << np.arange(len(TOPICS)))
    values, counts = np.unique(keys, return_counts=True)
    modal = (int(values[np.argmax(counts)]) >> np.arange(len(TOPICS))) & 1 == 1
    drawn = rng.choice(values, size=size, p=counts / counts.sum())
    systems = {"majority-set": np.tile(modal, (size, 1)),
               "prior-sampler": (drawn[:, None] >> np.arange(len(TOPICS))) & 1 == 1,
               "threshold-0.3": scores >= 0.3, "top1": top1, "tuned": scores >= TUNED}
    return gold, scores, systems


def _set_file(ids: list[str], bits: np.ndarray) -> str:
    rows = (",".join(t for t, on in zip(TOPICS, row) if on) for row in bits)
    return "id\tlabels\n" + "".join(f"{i}\t{row}\n" for i, row in zip(ids, rows))


def _score_file(ids: list[str], scores: np.ndarray) -> str:
    return "id\t" + "\t".join(TOPICS) + "\n" + "".join(
        i + "\t" + "\t".join(f"{v:.4f}" for v in row) + "\n" for i, row in zip(ids, scores))


def generate(seed: int, size: int = SIZE) -> Demo:
    """The multi-label demo: ``gold.tsv`` and ``systems/NAME.tsv`` (``id<TAB>labels`` or a column per topic)."""
    gold, scores, systems = simulate(seed, size)
    ids = [f"M{i:0{len(str(size))}d}" for i in range(1, size + 1)]
    files = {"gold.tsv": _set_file(ids, gold), "systems/model-scores.tsv": _score_file(ids, scores)}
    files |= {f"systems/{name}.tsv": _set_file(ids, bits) for name, bits in systems.items()}
    names = sorted(["model-scores", *systems], key=lambda name: f"{name}.tsv")
    about = (f"Simulated, not a real evaluation: {size:,} customer messages, each tagged with one to three of eight "
             f"topics with skewed shares (billing {100 * SHARES[0]:g}% to fraud {100 * SHARES[-1]:g}%), and six "
             "systems read from one simulated scoring model (auditor/demo/multilabel.py): its per-topic scores "
             "(thresholded by the audit), a 0.3 threshold, the top topic only, thresholds tuned lower for rare "
             f"topics, gold's most frequent set, and a sampler of gold's sets. Simulation seed {seed}.")
    return Demo("multilabel", files, "gold.tsv", {name: f"systems/{name}.tsv" for name in names}, about,
                pattern="systems/*.tsv")
