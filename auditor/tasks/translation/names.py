"""The translation task's names that the command line needs before any audit runs (kept apart
from the counting and resampling modules, so that ``auditor`` starts without scipy.sparse)."""
from __future__ import annotations

#: sacrebleu's offline tokenisers ``--tokenize`` accepts.
TOKENIZERS = ("13a", "intl", "zh", "char", "none")
#: The metric ids of the task, in report order (``MicroF`` is the poster's frequency-weighted F).
METRICS = ("macrof", "microf", "bleu", "chrf")
#: Display names of the ids.
NAMES = {"macrof": "MacroF", "microf": "MicroF", "bleu": "BLEU", "chrf": "chrF"}
#: Further spellings of the ids (normalised: lower case, letters and digits only) -> id.
METRIC_ALIASES = {"macrof1": "macrof", "microf1": "microf", "chrf2": "chrf"}
#: Said with an unknown metric name.
METRIC_NOTE = "(MicroF is the poster's frequency-weighted F, not micro-averaged F1)"
