"""What each figure rewards when the classes are levels, probed on matrices built for the question, with witnesses.

Four questions (after Amigó et al. 2020 §3, whose ordinal monotonicity and imbalance properties the first two
follow, and Baccianella et al. 2009 §1, whose trivial majority-class system motivates the second):

``nearer_miss``
    Does moving one item one step nearer its gold level always raise the figure? Probed on random matrices
    (k = 3..6) at random cells two or more steps off the diagonal. ``yes`` if it always rises; ``no`` if it
    can stay or fall (witness: the two matrices and scores).
``imbalance``
    Can imbalance make a trivial system look as good as an informative one? Gold with 60–90% of the items on
    one level (the middle or the top of k = 5 levels); the constant majority level against a system right on
    half of every level and one step off on the rest. ``yes`` (hurt) if the constant scores at least as well in
    some setting (witness: the first such setting).
``middle``
    Does predicting the middle level pay? Uniform gold over k = 5 levels: the constant middle level against the
    constant lowest level and against random guessing with the gold shares (its expected matrix). ``yes`` if the
    middle scores better than both.
``chance``
    Does every predictor that ignores its input score one value? The expected matrices N p qᵀ of every constant,
    the uniform and the prevalence guess, on uniform and on skewed gold: ``complete`` if all the defined values
    are one number (a constant prediction may leave the figure undefined), ``no`` otherwise (witness: two).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.metrics.registry import ConfusionStats, Metric

#: Random matrices per number of levels (nearer-miss probe).
RANDOM = 300
TOLERANCE = 1e-9
QUESTIONS = ("nearer_miss", "imbalance", "middle", "chance")
TITLES = {"nearer_miss": "rewards a nearer miss", "imbalance": "hurt by imbalance",
          "middle": "rewards the middle level", "chance": "chance-corrected"}


@dataclass(frozen=True)
class Witness:
    """Why an answer is what it is: two matrices (rows gold) and the figure of each, or one sentence."""

    text: str
    matrices: tuple[np.ndarray, ...] = ()
    values: tuple[float | None, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "matrices": [m.astype(int).tolist() for m in self.matrices],
                "values": [None if v is None or np.isnan(v) else float(v) for v in self.values]}


@dataclass(frozen=True)
class OrdinalProperties:
    """metric id -> question -> (answer, witness or None)."""

    answers: Mapping[str, Mapping[str, tuple[str, Witness | None]]]

    def to_json(self) -> dict[str, Any]:
        return {"questions": {q: TITLES[q] for q in QUESTIONS},
                "metrics": {metric_id: {q: {"answer": answer, "witness": None if w is None else w.to_json()}
                                        for q, (answer, w) in questions.items()}
                            for metric_id, questions in self.answers.items()}}


def _scores(metrics: Sequence[Metric], matrices: np.ndarray) -> dict[str, np.ndarray]:
    """Every metric on the batch, oriented (higher = better), NaN where undefined."""
    stats = ConfusionStats(np.asarray(matrices, dtype=float), True)
    with np.errstate(all="ignore"):
        return {m.id: m.oriented(np.asarray(m.function(stats), dtype=float)) for m in metrics}


def _shown(metric: Metric, oriented: float) -> float:
    return float(metric.oriented(np.array(oriented)))


def _nearer_pairs(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(before, after) matrices: one item moved one step nearer its gold level, R per k = 3..6 (padded to 6)."""
    before, after = [], []
    for k in range(3, 7):
        for _ in range(RANDOM):
            m = rng.integers(0, 6, size=(k, k)).astype(float)
            cells = [(i, j) for i in range(k) for j in range(k) if abs(i - j) >= 2]
            i, j = cells[rng.integers(len(cells))]
            m[i, j] += 1
            moved = m.copy()
            moved[i, j] -= 1
            moved[i, j + (1 if i > j else -1)] += 1
            before.append(np.pad(m, (0, 6 - k)))
            after.append(np.pad(moved, (0, 6 - k)))
    return np.array(before), np.array(after)


def _nearer_miss(metric: Metric, before: np.ndarray, after: np.ndarray, b: np.ndarray, a: np.ndarray):
    defined = ~(np.isnan(b) | np.isnan(a))
    worse = np.flatnonzero(defined & (a < b - TOLERANCE))
    same = np.flatnonzero(defined & (np.abs(a - b) <= TOLERANCE))
    for answer, hits, text in (("no", worse, "the nearer miss scores worse"),
                               ("no", same, "the nearer miss scores the same")):
        if hits.size:
            x = hits[np.argmin(before[hits].sum(axis=(1, 2)))]
            return answer, Witness(text, (before[x], after[x]), (_shown(metric, b[x]), _shown(metric, a[x])))
    return "yes", None


def _imbalance_settings() -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(trivial, informative) matrices on skewed gold over 5 levels (100 items a level-share point)."""
    trivial, informative, texts = [], [], []
    for place, where in ((2, "middle"), (4, "top")):
        for skew in (0.6, 0.7, 0.8, 0.9):
            gold = np.full(5, (1 - skew) / 4 * 1000)
            gold[place] = skew * 1000
            t = np.zeros((5, 5))
            t[:, place] = gold
            good = np.diag(gold / 2)
            for i in range(5):  # the other half one step off, both ways where both exist
                neighbours = [j for j in (i - 1, i + 1) if 0 <= j < 5]
                for j in neighbours:
                    good[i, j] += gold[i] / 2 / len(neighbours)
            trivial.append(t)
            informative.append(good)
            texts.append(f"{int(skew * 100)}% of the gold on the {where} level of 5")
    return np.array(trivial), np.array(informative), texts


def _middle_matrices() -> np.ndarray:
    """Uniform gold over 5 levels (20 items each): constant middle, constant lowest, random guessing's E[C]."""
    gold = np.full(5, 20.0)
    middle, lowest = np.zeros((5, 5)), np.zeros((5, 5))
    middle[:, 2], lowest[:, 0] = gold, gold
    return np.array([middle, lowest, np.outer(gold, gold / gold.sum())])


def _chance_matrices() -> tuple[np.ndarray, list[str]]:
    """Expected matrices N p qᵀ of predictors that ignore their input, on uniform and on skewed gold (5 levels)."""
    matrices, names = [], []
    for gold_name, gold in (("uniform gold", np.full(5, 20.0)), ("skewed gold", np.array([5, 10, 50, 25, 10.0]))):
        guesses = {f"constant level {c + 1}": np.eye(5)[c] for c in range(5)}
        guesses.update({"uniform guess": np.full(5, 0.2), "prevalence guess": gold / gold.sum()})
        for name, q in guesses.items():
            matrices.append(np.outer(gold, q))
            names.append(f"{name} on {gold_name}")
    return np.array(matrices), names


def ordinal_properties(metrics: Sequence[Metric], seed: int) -> OrdinalProperties:
    """Answer the four questions for every scalar metric of ``metrics``."""
    metrics = [m for m in metrics if not m.per_class]
    before, after = _nearer_pairs(np.random.default_rng(seed))
    trivial, informative, settings = _imbalance_settings()
    middle = _middle_matrices()
    chance, chance_names = _chance_matrices()
    scores = {name: _scores(metrics, batch) for name, batch in (
        ("before", before), ("after", after), ("trivial", trivial), ("informative", informative),
        ("middle", middle), ("chance", chance))}
    answers: dict[str, dict[str, tuple[str, Witness | None]]] = {}
    for metric in metrics:
        s = {name: values[metric.id] for name, values in scores.items()}
        row: dict[str, tuple[str, Witness | None]] = {
            "nearer_miss": _nearer_miss(metric, before, after, s["before"], s["after"])}
        hurt = [x for x in range(len(settings)) if not np.isnan(s["trivial"][x])
                and not np.isnan(s["informative"][x]) and s["trivial"][x] >= s["informative"][x] - TOLERANCE]
        row["imbalance"] = ("yes", Witness(
            f"{settings[hurt[0]]}: the constant majority level scores at least as well as a system right on half of "
            f"every level and one step off on the rest", (trivial[hurt[0]], informative[hurt[0]]),
            (_shown(metric, s["trivial"][hurt[0]]),
             _shown(metric, s["informative"][hurt[0]])))) if hurt else ("no", None)
        m = s["middle"]
        values = tuple(_shown(metric, x) for x in m)
        pays = not np.isnan(m).any() and m[0] > m[1] + TOLERANCE and m[0] > m[2] + TOLERANCE
        row["middle"] = ("yes" if pays else "undefined" if np.isnan(m[0]) else "no", Witness(
            "uniform gold over 5 levels: constant middle level, constant lowest level, random guessing",
            tuple(middle), values))
        c = s["chance"]
        defined = np.flatnonzero(~np.isnan(c))
        spread = c[defined].max() - c[defined].min() if defined.size else 0.0
        if defined.size and spread > TOLERANCE:
            hi, lo = defined[np.argmax(c[defined])], defined[np.argmin(c[defined])]
            row["chance"] = ("no", Witness(f"{chance_names[hi]} against {chance_names[lo]}", (chance[hi], chance[lo]),
                                           (_shown(metric, c[hi]), _shown(metric, c[lo]))))
        else:
            row["chance"] = ("complete" if defined.size else "undefined", None)
        answers[metric.id] = row
    return OrdinalProperties(answers)
