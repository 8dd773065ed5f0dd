"""Multi-label classification (``--task multilabel``): label sets per item, scored as scikit-learn scores them.

Reading (:mod:`.reading`, :mod:`.label_columns`: joined sets, JSON Lines or Parquet lists, a column per label
with sets or scores) -> alignment on one item and label order (:mod:`.align`, optionally through a label map)
-> per-item sufficient statistics and their sums (:mod:`.counting`) -> metrics as functions of the sums
(:mod:`.measures`) -> bootstrap and paired tests over items (:mod:`.resampling`) -> result (:mod:`.result`) and
report (:mod:`.report`). The interface :mod:`auditor.tasks` asks for: ``OPTIONS``, :func:`audit`, ``METRIC_IDS``.
"""
from __future__ import annotations

from typing import Any

import click

from auditor.tasks.multilabel.checks import check
from auditor.tasks.multilabel.measures import METRIC_IDS

#: Options ``score`` and ``report`` gain for ``--task multilabel``.
OPTIONS = [
    click.option("--label-separator", "label_separator", default=None, metavar="SEP",
                 help="What joins the labels of an item in `id<TAB>labels` files (multilabel; default ',')."),
    click.option("--threshold", "threshold", type=float, default=None,
                 help="Score files (a column per label, scores in [0, 1]): a label is predicted when its score is at "
                      "least this (multilabel; default 0.5, said so)."),
    click.option("--thresholds", "thresholds", type=str, default=None, metavar="FILE",
                 help="Per-label thresholds of score files, `label<TAB>threshold` lines (multilabel)."),
]
#: Inputs beside GOLD and SYSTEMS (:mod:`auditor.tasks`): ``--label-map`` reaches :func:`audit` as ``label_map``.
INPUTS = ("label_map",)

#: Further spellings -> id (normalised as :func:`auditor.metrics.registry.normalise_name`).
METRIC_ALIASES = {"exactmatch": "subset_accuracy", "exactmatchratio": "subset_accuracy",
                  "hamming": "hamming_loss", "jaccard": "jaccard_samples", "jaccardaccuracy": "jaccard_samples",
                  "multilabelaccuracy": "jaccard_samples", "accuracy": "subset_accuracy"}
#: Said with an unknown name.
METRIC_NOTE = ("(micro_f1 is micro-averaged F1 over labels here, never accuracy; 'accuracy' means subset accuracy "
               "and 'jaccard' samples-averaged Jaccard, SemEval-2018 E-c's 'accuracy')")


def audit(gold: str | None, systems: Any, **options: Any) -> Any:
    """The multi-label audit (:func:`auditor.tasks.multilabel.run.audit`; imported when first used)."""
    from auditor.tasks.multilabel.run import audit as run

    return run(gold, systems, **options)


__all__ = ["OPTIONS", "INPUTS", "METRIC_IDS", "METRIC_ALIASES", "METRIC_NOTE", "check", "audit"]
