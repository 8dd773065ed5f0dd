"""The ordinal demo: product reviews rated 1 to 5 stars (most of them 4 or 5), rated by six systems with the
behaviours ordinal evaluations meet.

Every system is a confusion model over the stars (:mod:`auditor.demo.simulate`): per gold rating, the share it gets
right and how its misses spread over the other ratings, mostly one star away. The models are chosen so that each
section of the ordinal report has something true to say:

- ``five-stars`` always answers 5 (the majority rating): good MAE on skewed gold, the worst macroaveraged MAE;
- ``median-stars`` always answers 4 (the median rating, the best constant under MAE);
- ``regressor-rounded`` rounds a regression: rarely far off, but pulled to the middle (few 1s and 5s);
- ``regressor-cutpoints`` the same regression with cut-points tuned for the rare ratings: a lower macroaveraged
  MAE and a higher MAE than the rounded one;
- ``classifier`` treats the stars as unordered classes: accurate on the frequent ratings, its misses often far;
- ``sentiment-3way`` maps a three-way sentiment model onto 1, 3 and 5 stars: never predicts 2 or 4.

Errors are shared: one latent difficulty per review, one more for the two regressors.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from auditor.demo.run import Demo
from auditor.demo.simulate import Coupling, class_counts, latent_quantiles, predict, shuffled_counts

LEVELS = ("1", "2", "3", "4", "5")
#: Gold rating shares (skewed to the top, as review sites' are).
SHARES = (0.08, 0.07, 0.12, 0.30, 0.43)
#: Reviews in the default demo, the fewest a demo may have, and what a unit is.
SIZE = 2000
MIN_SIZE = 100
UNIT = "reviews"

#: System -> per gold rating, P(predicted rating) (rows sum to 1), in LEVELS order.
MODELS: dict[str, list[list[float]]] = {
    "regressor-rounded": [[0.30, 0.50, 0.18, 0.02, 0.00], [0.08, 0.42, 0.42, 0.08, 0.00],
                          [0.00, 0.12, 0.60, 0.26, 0.02], [0.00, 0.01, 0.10, 0.74, 0.15],
                          [0.00, 0.00, 0.03, 0.42, 0.55]],
    "regressor-cutpoints": [[0.62, 0.26, 0.10, 0.02, 0.00], [0.22, 0.48, 0.24, 0.06, 0.00],
                            [0.04, 0.20, 0.50, 0.22, 0.04], [0.01, 0.05, 0.18, 0.52, 0.24],
                            [0.00, 0.01, 0.06, 0.30, 0.63]],
    "classifier": [[0.45, 0.10, 0.05, 0.15, 0.25], [0.20, 0.25, 0.10, 0.15, 0.30],
                   [0.08, 0.05, 0.40, 0.22, 0.25], [0.03, 0.02, 0.05, 0.70, 0.20],
                   [0.02, 0.01, 0.02, 0.15, 0.80]],
    "sentiment-3way": [[0.80, 0.00, 0.15, 0.00, 0.05], [0.55, 0.00, 0.35, 0.00, 0.10],
                       [0.12, 0.00, 0.70, 0.00, 0.18], [0.03, 0.00, 0.32, 0.00, 0.65],
                       [0.02, 0.00, 0.08, 0.00, 0.90]],
}
COUPLINGS = {
    "five-stars": Coupling(), "median-stars": Coupling(),
    "regressor-rounded": Coupling(0.5, 0.4, "regression"), "regressor-cutpoints": Coupling(0.5, 0.4, "regression"),
    "classifier": Coupling(0.5), "sentiment-3way": Coupling(0.4),
}


def confusion_rows() -> dict[str, np.ndarray]:
    """System -> its k × k prediction distributions (row g: P(predicted rating | gold g))."""
    k = len(LEVELS)
    rows = {"five-stars": np.tile(np.eye(k)[k - 1], (k, 1)), "median-stars": np.tile(np.eye(k)[3], (k, 1))}
    rows.update({system: np.asarray(matrix) for system, matrix in MODELS.items()})
    return {system: rows[system] for system in COUPLINGS}


def simulate(seed: int, items: int = SIZE) -> tuple[list[str], dict[str, list[str]]]:
    """Gold ratings and every system's of ``items`` reviews (exact rating counts, random order); a hard review (a
    high quantile) drifts from its gold rating outwards, the nearest ratings first."""
    rng = np.random.default_rng(seed)
    gold = shuffled_counts(rng, class_counts(items, SHARES))
    k = len(LEVELS)
    orders = np.array([sorted(range(k), key=lambda j: (abs(j - g), j)) for g in range(k)])
    quantiles = latent_quantiles(rng, items, COUPLINGS)
    names = np.array(LEVELS)
    systems = {system: names[predict(gold, quantiles[system], rows, orders)].tolist()
               for system, rows in confusion_rows().items()}
    return names[gold].tolist(), systems


def level_file(ids: list[str], levels: list[str]) -> str:
    """A TSV file with a header: ``id<TAB>level`` lines."""
    return "id\tlevel\n" + "".join(f"{i}\t{level}\n" for i, level in zip(ids, levels))


def generate(seed: int, size: int = SIZE) -> Demo:
    """The ordinal demo: ``gold.tsv``, ``systems/NAME.tsv`` (``id<TAB>level``) and ``order.txt``."""
    gold, systems = simulate(seed, size)
    ids = [f"R{i:0{len(str(size))}d}" for i in range(1, size + 1)]
    names = sorted(systems, key=lambda name: f"{name}.tsv")
    files = {"gold.tsv": level_file(ids, gold), "order.txt": ",".join(LEVELS) + "\n"}
    files |= {f"systems/{name}.tsv": level_file(ids, systems[name]) for name in names}
    return Demo("ordinal", files, "gold.tsv", {name: f"systems/{name}.tsv" for name in names},
                describe(size, systems, seed), inputs={"order_file": "order.txt"}, pattern="systems/*.tsv")


def describe(items: int, systems: Mapping[str, object], seed: int) -> str:
    """Page 1's note on the data: what was simulated, how, and the systems' intended behaviours."""
    shares = ", ".join(f"{level} stars {100 * share:g}%" for level, share in zip(LEVELS, SHARES))
    return (f"Simulated, not a real evaluation: {items:,} product reviews rated 1 to 5 stars with fixed shares "
            f"({shares}), rated by {len(systems)} simulated systems. Each system is a confusion model over the "
            "stars (auditor/demo/ordinal.py): per gold rating, the share it gets right and where its misses go, "
            "nearest ratings first; one latent difficulty per review makes the systems miss the same reviews. The "
            "systems: five-stars (always 5, the majority rating), median-stars (always 4, the median rating), "
            "regressor-rounded (pulled to the middle), regressor-cutpoints (its cut-points tuned for the rare "
            "ratings), classifier (stars as unordered classes: far misses) and sentiment-3way (only 1, 3 and 5). "
            f"Simulation seed {seed}.")
