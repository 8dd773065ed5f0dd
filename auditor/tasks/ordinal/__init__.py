"""Ordinal classification (``--task ordinal``): levels in an order (CEFR, star ratings, 5-point sentiment).

Classification's pipeline with an order: the labels are the levels in order (:mod:`.levels`: ``--order``,
``--order-file`` or integer labels), the unit is the item and its statistic the (gold level, predicted
level) pair, so the confusion matrix is sufficient for every figure; :mod:`.measures` adds the ordinal
figures (distances in steps of the order) to the classification catalogue, and :mod:`.run` runs the
classification stages on both. :mod:`.result` writes the JSON and the terminal table; :mod:`.report`
adds the ordinal sections to the classification report.
The interface :mod:`auditor.tasks` asks for: ``OPTIONS``, :func:`audit`, ``METRIC_IDS``.
"""
from __future__ import annotations

from typing import Any

import click

from auditor.metrics.catalogue import BASE_METRIC_IDS
from auditor.tasks.ordinal.choices import check

#: The ordinal figures' ids (kept here so that the command line checks -m without importing numpy work).
ORDINAL_METRIC_IDS = ("mae_macro", "mae", "mse_macro", "mse", "within_one", "linear_kappa", "quadratic_kappa",
                      "spearman", "kendall_tau_b", "cem_ord")

#: Options ``score`` and ``report`` gain for ``--task ordinal``.
OPTIONS = [
    click.option("--order", "order", metavar="A,B,C",
                 help="ordinal: the levels, lowest first, comma-separated (default: integer labels by value)."),
    click.option("--order-file", "order_file", metavar="FILE",
                 help="ordinal: a file of the levels, lowest first, comma-separated or one per line."),
]

#: The ids ``-m`` and ``--sort`` may name for this task.
METRIC_IDS = (*ORDINAL_METRIC_IDS, *BASE_METRIC_IDS)
#: Further spellings (normalised as :func:`auditor.metrics.registry.normalise_name`) -> id.
METRIC_ALIASES = {"maem": "mae_macro", "macromae": "mae_macro", "macroaveragedmae": "mae_macro",
                  "msem": "mse_macro", "macromse": "mse_macro", "qwk": "quadratic_kappa",
                  "quadraticweightedkappa": "quadratic_kappa", "linearweightedkappa": "linear_kappa",
                  "spearmanrho": "spearman", "rho": "spearman", "kendalltau": "kendall_tau_b", "taub": "kendall_tau_b",
                  "cem": "cem_ord", "cemord": "cem_ord", "adjacentaccuracy": "within_one", "offbyone": "within_one"}
#: The inputs beside GOLD and SYSTEMS this task reads (the command line refuses the others).
INPUTS = ("annotators",)


def audit(gold: str | None, systems: Any, **options: Any) -> Any:
    """The ordinal audit (:func:`auditor.tasks.ordinal.run.audit`; imported when first used)."""
    from auditor.tasks.ordinal.run import audit as run

    return run(gold, systems, **options)


__all__ = ["OPTIONS", "METRIC_IDS", "METRIC_ALIASES", "INPUTS", "check", "audit"]
