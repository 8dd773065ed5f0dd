"""Translation: type-level MacroF and MicroF beside BLEU and chrF, against human judgements.

``auditor score|report --task translation REF SYSTEM...`` (issue 23). A vocabulary type is a
class (Gowda, You, Lignos & May 2021, "Macro-Average: Rare Types Are Important Too", NAACL):
per unigram type of sacrebleu's tokenisation the counts (matched = clipped overlap, predicted,
reference) per segment are the sufficient statistic; MacroF, MicroF, the per-band tables and
every resample are functions of them, and BLEU and chrF come from sacrebleu's own per-segment
statistics. Stages: :mod:`.reading` -> :mod:`.counting` -> :mod:`.measures` ->
:mod:`.resampling`, :mod:`.bands`, :mod:`.agreement` -> :mod:`.recommend` -> :mod:`.result`
(JSON, terminal) and :mod:`.report` (the report model).
"""
from __future__ import annotations

from typing import Any

import click

from auditor.tasks.translation.names import METRIC_ALIASES, METRIC_NOTE, METRICS, TOKENIZERS

#: The ids ``-m`` may name (``MicroF`` is the poster's frequency-weighted F, not micro-averaged F1).
METRIC_IDS = METRICS

OPTIONS = [
    click.option("--reference", "reference", multiple=True, metavar="FILE",
                 help="translation: another reference, aligned by line with REF (repeatable)."),
    click.option("--tokenize", type=click.Choice(TOKENIZERS), default=None,
                 help="translation: sacrebleu tokeniser for BLEU, MacroF and MicroF [default: 13a]."),
    click.option("--lowercase", is_flag=True, help="translation: lowercase before scoring (sacrebleu's -lc)."),
    click.option("--human", type=str, default=None, metavar="FILE",
                 help="translation: human scores, system<TAB>score or system<TAB>line<TAB>score lines (line: "
                      "1-based line of the text files; missing segments allowed): Kendall τ and Pearson r per metric."),
    click.option("--human-lower-better", is_flag=True, help="translation: lower human scores are better (e.g. MQM)."),
    click.option("--f-beta", type=float, default=None, help="translation: β of MacroF/MicroF [default: 1]."),
    click.option("--microf-k", type=float, default=None,
                 help="translation: k of MicroF's f(c) = Refs(c) + k [default: 1]."),
]


def audit(gold: str | None, systems: Any, **options: Any) -> Any:
    """The translation audit (:func:`auditor.tasks.translation.run.audit`; imported when first used, so
    that the command line starts without scipy.sparse and sacrebleu)."""
    from auditor.tasks.translation.run import audit as run

    return run(gold, systems, **options)


__all__ = ["OPTIONS", "METRIC_IDS", "METRIC_ALIASES", "METRIC_NOTE", "audit"]
