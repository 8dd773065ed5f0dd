"""Token taggers (``--task tagging``): spans counted exactly as conlleval and seqeval count them.

Reading (:mod:`.reading`, :mod:`.align`) -> chunks by scheme and rule (:mod:`.schemes`) -> per-sentence
counts (:mod:`.counting`) -> figures (:mod:`.measures`, the classification catalogue over tokens) ->
the spine's bootstrap and pair tests over sentences (:mod:`auditor.analyses.units`) -> result (:mod:`.result`)
and report (:mod:`.report`).
The interface :mod:`auditor.tasks` asks for: ``OPTIONS``, :func:`audit`, ``METRIC_IDS``.
"""
from __future__ import annotations

from typing import Any

import click

from auditor.metrics.catalogue import BASE_METRIC_IDS
from auditor.metrics.registry import REGISTRY, normalise_name
from auditor.tasks.tagging.names import SPAN_METRICS, TYPE_PREFIX
from auditor.tasks.tagging.schemes import RULES, SCHEMES

#: Options ``score`` and ``report`` gain for ``--task tagging``.
OPTIONS = [
    click.option("--scheme", type=click.Choice(SCHEMES), default=None,
                 help="Tagging scheme (tagging; default: detected from the gold tags, and said so)."),
    click.option("--span-rule", "span_rule", type=click.Choice(RULES), default=None,
                 help="How chunks are read (tagging): conlleval (the Perl script's rules; default for IOB/IOE) or "
                      "strict (seqeval's strict mode; default for IOBES/BILOU)."),
    click.option("--tag-column", "tag_column", type=click.IntRange(min=1), default=None,
                 help="Column (1-based) of the tag in gold and system files (tagging; default: from the layout)."),
    click.option("--conlleval", "conlleval", multiple=True, metavar="[NAME=]FILE",
                 help="A file in conlleval's layout, `token ... gold prediction` (tagging; repeatable, same gold; "
                      "replaces GOLD and SYSTEMS)."),
]

#: The ids ``-m`` and ``--sort`` may name for this task.
METRIC_IDS = (*SPAN_METRICS, *BASE_METRIC_IDS, *(TYPE_PREFIX + m for m in BASE_METRIC_IDS))
#: Further spellings (normalised as :func:`auditor.metrics.registry.normalise_name`) -> id: the catalogue's
#: aliases with the type prefix (``type_balanced_accuracy`` -> ``type_macro_recall``).
METRIC_ALIASES = {normalise_name(TYPE_PREFIX) + alias: TYPE_PREFIX + metric_id
                  for alias, metric_id in REGISTRY.aliases.items() if metric_id in BASE_METRIC_IDS}


def audit(gold: str | None, systems: Any, **options: Any) -> Any:
    """The tagging audit (:func:`auditor.tasks.tagging.run.audit`; imported when first used, so that the
    command line starts without scipy.sparse)."""
    from auditor.tasks.tagging.run import audit as run

    return run(gold, systems, **options)

__all__ = ["OPTIONS", "METRIC_IDS", "METRIC_ALIASES", "audit"]
