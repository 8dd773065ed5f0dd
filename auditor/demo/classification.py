"""The classification demo: support tickets routed to four imbalanced classes, one of them rare, by eight systems
with the behaviours evaluations meet.

Every system is a confusion model (:mod:`auditor.demo.simulate`): for each gold class the share of its items the
system gets right and how it spreads its errors over the other classes. The models are chosen so that each
section of the report has something true to say:

- ``majority`` always answers ``billing``: accuracy = the majority share, macro recall = 1/k, kappa = 0;
- ``prior-sampler`` draws a label from the class shares, ignoring the ticket: every chance-corrected metric ≈ 0;
- ``bow-logreg`` never predicts the rare ``fraud`` (its recall there is 0, its precision undefined);
- ``bow-logreg-balanced``, the same model trained class-balanced, trades accuracy for the rare classes' recall;
- ``transformer-a`` and ``transformer-b`` are close competitors: a higher accuracy for A, a higher recall of the
  rare class for B, so their order flips between accuracy and the class-averaged metrics;
- ``tiny-nb`` is barely above chance (5% of its answers follow the ticket, the rest are guesses);
- ``keyword-rules`` answers ``billing`` unless a keyword fires: few false alarms of ``fraud``, many misses.

Errors are shared: one latent difficulty per ticket, one per family of models (bag-of-words, transformer).
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from auditor.demo.run import Demo
from auditor.demo.simulate import Coupling, class_counts, latent_quantiles, predict, shuffled_counts

LABELS = ("billing", "technical", "account", "fraud")
#: Gold class shares (the rare class: fraud, 3%).
SHARES = (0.55, 0.27, 0.15, 0.03)
#: Per gold class, the classes in the order a hard ticket drifts to them (the gold class first).
ORDERS = {"billing": ("billing", "account", "fraud", "technical"),
          "technical": ("technical", "account", "billing", "fraud"),
          "account": ("account", "technical", "billing", "fraud"),
          "fraud": ("fraud", "billing", "account", "technical")}
#: Tickets in the default demo, the fewest a demo may have, and what a unit is.
SIZE = 3000
MIN_SIZE = 100
UNIT = "tickets"

#: System -> gold class -> (share right, {other class: share of the errors}). A class that a system's errors
#: never go to, and that it never gets right, it never predicts.
MODELS: dict[str, dict[str, tuple[float, dict[str, float]]]] = {
    "bow-logreg": {"billing": (0.90, {"account": 0.6, "technical": 0.4}),
                   "technical": (0.78, {"account": 0.55, "billing": 0.45}),
                   "account": (0.64, {"technical": 0.5, "billing": 0.5}),
                   "fraud": (0.0, {"billing": 0.7, "account": 0.3})},
    "bow-logreg-balanced": {"billing": (0.72, {"account": 0.45, "fraud": 0.30, "technical": 0.25}),
                            "technical": (0.74, {"account": 0.6, "billing": 0.25, "fraud": 0.15}),
                            "account": (0.71, {"technical": 0.5, "billing": 0.2, "fraud": 0.3}),
                            "fraud": (0.60, {"billing": 0.55, "account": 0.45})},
    "transformer-a": {"billing": (0.95, {"account": 0.6, "technical": 0.25, "fraud": 0.15}),
                      "technical": (0.88, {"account": 0.6, "billing": 0.4}),
                      "account": (0.77, {"technical": 0.5, "billing": 0.5}),
                      "fraud": (0.40, {"billing": 0.7, "account": 0.3})},
    "transformer-b": {"billing": (0.92, {"account": 0.5, "fraud": 0.25, "technical": 0.25}),
                      "technical": (0.87, {"account": 0.6, "billing": 0.4}),
                      "account": (0.79, {"technical": 0.5, "billing": 0.5}),
                      "fraud": (0.58, {"billing": 0.6, "account": 0.4})},
    "keyword-rules": {"billing": (0.97, {"technical": 0.45, "account": 0.45, "fraud": 0.1}),
                      "technical": (0.52, {"billing": 0.9, "account": 0.1}),
                      "account": (0.40, {"billing": 0.85, "technical": 0.15}),
                      "fraud": (0.38, {"billing": 1.0})},
}
#: ``tiny-nb``: the share of its answers that follow the ticket; the rest are drawn from GUESSES.
TINY_SIGNAL = 0.05
GUESSES = (0.45, 0.30, 0.20, 0.05)

#: How each system's errors are shared (item difficulty, family).
COUPLINGS = {
    "majority": Coupling(),
    "prior-sampler": Coupling(),
    "bow-logreg": Coupling(0.55, 0.35, "bag-of-words"),
    "bow-logreg-balanced": Coupling(0.55, 0.35, "bag-of-words"),
    "transformer-a": Coupling(0.6, 0.4, "transformer"),
    "transformer-b": Coupling(0.6, 0.4, "transformer"),
    "tiny-nb": Coupling(0.2),
    "keyword-rules": Coupling(0.45),
}


def confusion_rows() -> dict[str, np.ndarray]:
    """System -> its k × k prediction distributions (row g: P(predicted label | gold g)), in :data:`LABELS`
    order."""
    k = len(LABELS)
    index = {label: j for j, label in enumerate(LABELS)}
    rows = {"majority": np.tile(np.eye(k)[index["billing"]], (k, 1)),
            "prior-sampler": np.tile(np.asarray(SHARES), (k, 1)),
            "tiny-nb": TINY_SIGNAL * np.eye(k) + (1 - TINY_SIGNAL) * np.tile(np.asarray(GUESSES), (k, 1))}
    for system, model in MODELS.items():
        matrix = np.zeros((k, k))
        for gold, (right, errors) in model.items():
            g = index[gold]
            matrix[g, g] = right
            for other, share in errors.items():
                matrix[g, index[other]] = (1 - right) * share / sum(errors.values())
        rows[system] = matrix
    return {system: rows[system] for system in COUPLINGS}


def simulate(seed: int, items: int = SIZE) -> tuple[list[str], dict[str, list[str]]]:
    """Gold labels and every system's predictions of ``items`` tickets (exact class counts, random order)."""
    rng = np.random.default_rng(seed)
    gold = shuffled_counts(rng, class_counts(items, SHARES))
    orders = np.array([[LABELS.index(label) for label in ORDERS[gold_label]] for gold_label in LABELS])
    quantiles = latent_quantiles(rng, items, COUPLINGS)
    rows = confusion_rows()
    names = np.array(LABELS)
    systems = {system: names[predict(gold, quantiles[system], rows[system], orders)].tolist() for system in rows}
    return names[gold].tolist(), systems


def label_file(ids: list[str], labels: list[str]) -> str:
    """A TSV label file with a header: ``id<TAB>label`` lines."""
    return "id\tlabel\n" + "".join(f"{i}\t{label}\n" for i, label in zip(ids, labels))


def generate(seed: int, size: int = SIZE) -> Demo:
    """The classification demo: ``gold.tsv`` and ``systems/NAME.tsv`` (``id<TAB>label``, with a header)."""
    gold, systems = simulate(seed, size)
    ids = [f"T{i:0{len(str(size))}d}" for i in range(1, size + 1)]
    names = sorted(systems, key=lambda name: f"{name}.tsv")  # as a shell's systems/*.tsv lists the files
    files = {"gold.tsv": label_file(ids, gold)} | {f"systems/{name}.tsv": label_file(ids, systems[name])
                                                  for name in names}
    return Demo("classification", files, "gold.tsv", {name: f"systems/{name}.tsv" for name in names},
                describe(size, systems, seed), pattern="systems/*.tsv")


def describe(items: int, systems: Mapping[str, object], seed: int) -> str:
    """Page 1's note on the data: what was simulated, how, and the systems' intended behaviours."""
    shares = ", ".join(f"{label} {100 * share:g}%" for label, share in zip(LABELS, SHARES))
    return (f"Simulated, not a real evaluation: {items:,} support tickets in four classes with fixed shares "
            f"({shares}), labelled by {len(systems)} simulated systems. Each system is a confusion model "
            "(auditor/demo/classification.py): per gold class, the share of tickets it gets right and where its "
            "errors go; one latent difficulty per ticket, shared by all systems, makes them err on the same "
            "tickets. The systems show behaviours evaluations meet: majority (always billing), prior-sampler "
            "(random labels in the class shares), bow-logreg (never predicts fraud) and bow-logreg-balanced (its "
            "class-balanced twin), two close competitors (transformer-a, transformer-b), tiny-nb (barely above "
            f"chance) and keyword-rules (billing unless a keyword fires). Simulation seed {seed}.")
