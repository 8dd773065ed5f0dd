"""Write this bundle's simulated data (the project's own, seed 2026): 300 items of 3 imbalanced classes.

``reference_data/gold.tsv`` is the organisers' gold; ``sample_submission/predictions.tsv`` a participant's output that
is right 70% of the time and otherwise leans to the majority class. Run: ``python make_data.py``.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
LABELS = np.array(["negative", "neutral", "positive"])


def main() -> None:
    rng = np.random.default_rng(2026)
    gold = rng.choice(3, size=300, p=[0.2, 0.5, 0.3])
    wrong = rng.choice(3, size=300, p=[0.15, 0.7, 0.15])
    predicted = np.where(rng.random(300) < 0.7, gold, wrong)
    for folder, name, codes in (("reference_data", "gold.tsv", gold), ("sample_submission", "predictions.tsv",
                                                                        predicted)):
        (HERE / folder).mkdir(exist_ok=True)
        lines = [f"item-{i + 1:03d}\t{LABELS[c]}" for i, c in enumerate(codes)]
        (HERE / folder / name).write_text("id\tlabel\n" + "\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
