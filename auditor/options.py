"""The one place where audit options are checked (CLI and Python API alike).

:func:`check_options` runs before any file is read, :func:`check_prevalence_labels` once the
label set is known. Each failure is one :class:`~auditor.errors.UsageError` naming the option
(as the command line spells it) and what was expected. :func:`parse_prevalence` turns the
command-line text of a prevalence option into ``{label: share}``.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from numbers import Integral, Real
from pathlib import Path
from typing import Any, Callable, Literal, Mapping, Sequence, get_args

from auditor.errors import InputError, UsageError
from auditor.files import read_small_text

#: Largest seed: numpy's SeedSequence takes any non-negative integer; 64 bits is plenty.
MAX_SEED = 2**64 - 1
#: Training shares must sum to 1 within this (three-decimal shares such as 0.333 x 3 pass).
SUM_TOLERANCE = 1e-3
#: Multiple-comparison corrections: Holm's step-down, Benjamini-Hochberg.
Correction = Literal["holm", "bh"]
CORRECTIONS: tuple[str, ...] = get_args(Correction)
#: How the report and the terminal name each correction.
CORRECTION_NAMES = {"holm": "Holm", "bh": "Benjamini–Hochberg"}


def correction_name(correction: str) -> str:
    """``holm`` -> "Holm", ``bh`` -> "Benjamini–Hochberg" (anything else as it is)."""
    return CORRECTION_NAMES.get(correction, correction)
DEPLOYMENT_WORDS = ("uniform", "test", "unknown")
#: Monte Carlo draws per chance baseline (and per system's shuffle): with R = 1000 the smallest
#: shuffle p-value is 1/1001 and the standard error of a quantile of the draws is a few per
#: cent of the range; not an option because no figure of the report depends on it beyond that.
CHANCE_DRAWS = 1000
#: A prevalence file is a few lines per class; anything larger is not one.
MAX_PREVALENCE_FILE_BYTES = 10_000_000
#: The part of ``statistics`` that ``auditor score``'s table shows: the bootstrap intervals and
#: rank distributions, without the pairwise tests and best sets (the costlier half at many systems).
#: Here, not in :mod:`auditor.pipeline`, so that the command line starts without the pipeline.
INTERVALS = "intervals"
#: The engines ``--engine`` accepts (:mod:`auditor.engines`; here so that the command line starts without them).
ENGINES = ("memory", "duckdb", "spark", "auto")
#: Worker threads of every stage that runs in parallel (reading, counting, resampling, shuffles, pair tests):
#: two at most, as numpy and pyarrow release the GIL only over whole arrays and more threads than cores contend.
THREADS = max(1, min(2, os.cpu_count() or 1))


@dataclass(frozen=True)
class AuditOptions:
    """Everything that changes an audit's numbers; all of it goes into the signature.

    ``bootstrap`` resamples (0 = off), ``seed`` for every random draw, ``alpha`` for
    intervals and tests, ``correction`` for multiple comparisons (``holm`` or ``bh``),
    ``training_prevalence`` label -> share (adds ``informedness_train``),
    ``deployment_prevalence`` (``uniform``, ``test``, ``unknown`` or label -> share),
    ``rare_classes_matter`` (intent for the recommendation), ``plugins`` (modules that
    register extra metrics), ``label_map`` (label -> group pairs, ``--label-map``: the audit
    counts groups; ``labels`` then names groups), ``clusters`` (a clusters file: the resampled unit is the cluster).
    """

    labels: tuple[str, ...] | None = None
    bootstrap: int = 1000
    seed: int = 12345
    alpha: float = 0.05
    correction: Correction = "holm"
    training_prevalence: Mapping[str, float] | None = None
    deployment_prevalence: str | Mapping[str, float] | None = None
    rare_classes_matter: bool = False
    plugins: tuple[str, ...] = ()
    #: A clusters file (``id<TAB>cluster``, :mod:`auditor.io.clusters`): resample and swap whole clusters.
    clusters: str | None = None
    label_map: tuple[tuple[str, str], ...] | None = None

    def to_json(self) -> dict[str, Any]:
        """Every option that changes the numbers, as given (after checking); ``null`` when unset."""
        def shares(value: Any) -> Any:
            return dict(value) if isinstance(value, Mapping) else value

        return {
            "labels": None if self.labels is None else list(self.labels),
            "bootstrap": self.bootstrap, "seed": self.seed, "alpha": self.alpha, "correction": self.correction,
            "training_prevalence": shares(self.training_prevalence),
            "deployment_prevalence": shares(self.deployment_prevalence),
            "rare_classes_matter": self.rare_classes_matter, "plugins": list(self.plugins),
            **({"clusters": str(self.clusters)} if self.clusters is not None else {}),
            "label_map": None if self.label_map is None else dict(self.label_map),
        }


#: The options only a classification audit reads (attribute -> flag).
CLASSIFICATION_ONLY = {"labels": "--labels", "training_prevalence": "--training-prevalence",
                       "deployment_prevalence": "--deployment-prevalence",
                       "rare_classes_matter": "--rare-classes-matter", "plugins": "--plugin"}


def check_options(options: Any, task: str | None = None, takes: Sequence[str] = ()) -> None:
    """Refuse an :class:`~auditor.pipeline.AuditOptions` whose values cannot be honoured; for another ``task`` kind
    than classification, also one that sets an option of :data:`CLASSIFICATION_ONLY` the task does not take."""
    for name, flag in CLASSIFICATION_ONLY.items() if task is not None else ():
        if name not in takes and getattr(options, name):
            raise UsageError(f"{flag} is for classification; it cannot be used with --task {task}")
    seed = options.seed
    if isinstance(seed, bool) or not isinstance(seed, Integral) or not 0 <= seed <= MAX_SEED:
        raise UsageError(f"--seed: expected an integer from 0 to 2**64-1, found {seed!r}")
    bootstrap = options.bootstrap
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, Integral) or bootstrap < 0:
        raise UsageError(f"--bootstrap: expected an integer >= 0 (0 turns resampling off), found {bootstrap!r}")
    alpha = options.alpha
    if isinstance(alpha, bool) or not isinstance(alpha, Real) or not 0 < float(alpha) < 1:
        raise UsageError(f"--alpha: expected a number strictly between 0 and 1 (e.g. 0.05), found {alpha!r}")
    if options.correction not in CORRECTIONS:
        raise UsageError(f"--correction: expected one of {', '.join(CORRECTIONS)}, found {options.correction!r}")
    if options.training_prevalence is not None:
        shares = _check_shares("--training-prevalence", options.training_prevalence)
        total = math.fsum(shares.values())
        if abs(total - 1) > SUM_TOLERANCE:
            raise UsageError(f"--training-prevalence: the shares must sum to 1, found {total:g} "
                             f"({', '.join(f'{label}={share:g}' for label, share in shares.items())})")
    clusters = getattr(options, "clusters", None)
    if clusters is not None and not Path(clusters).is_file():
        raise UsageError(f"--clusters: {clusters} is not a file; expected one line `id<TAB>cluster` per unit")
    target = options.deployment_prevalence
    if isinstance(target, str):
        if target not in DEPLOYMENT_WORDS:
            raise UsageError(f"--deployment-prevalence: expected {', '.join(DEPLOYMENT_WORDS)}, a file or "
                             f"'a=0.2,b=0.8', found {target!r}")
    elif target is not None:
        _check_shares("--deployment-prevalence", target)


def check_prevalence_labels(options: Any, labels: Sequence[str]) -> None:
    """Every label named in a prevalence option must be in the audit's label set."""
    for option, shares in (("--training-prevalence", options.training_prevalence),
                           ("--deployment-prevalence", options.deployment_prevalence)):
        if isinstance(shares, Mapping):
            unknown = [label for label in shares if label not in labels]
            if unknown:
                raise UsageError(f"{option}: label(s) {', '.join(map(repr, unknown))} not in the label set "
                                 f"({', '.join(labels)})")


def _check_shares(option: str, shares: Any) -> dict[str, float]:
    if not isinstance(shares, Mapping) or not shares:
        raise UsageError(f"{option}: expected a mapping label -> share, found {type(shares).__name__}")
    checked: dict[str, float] = {}
    for label, share in shares.items():
        if not isinstance(label, str):
            raise UsageError(f"{option}: labels must be strings, found {label!r}")
        if isinstance(share, bool) or not isinstance(share, Real) or not math.isfinite(share) or share < 0:
            raise UsageError(f"{option}: the share of {label!r} must be a finite number >= 0, found {share!r}")
        checked[label] = float(share)
    if math.fsum(checked.values()) <= 0:
        raise UsageError(f"{option}: the shares are all 0")
    return checked


def parse_prevalence(text: str | None, option: str) -> dict[str, float] | None:
    """``"a=0.2,b=0.8"`` or the path of a file of ``label<TAB>share`` lines -> {label: share}.

    In a file, blank lines are skipped and a line starting with ``#`` is a comment (the
    format is ours; a label that starts with ``#`` goes in the inline form). Checked for
    finite non-negative shares and duplicate labels here; the rest by :func:`check_options`.
    """
    if not text:
        return None
    if os.path.exists(text):
        source = f"{option} {text}"
        if not os.path.isfile(text):
            raise UsageError(f"{source}: not a regular file; expected a file of 'label<TAB>share' lines "
                             f"or 'a=0.2,b=0.8'")
        content = read_small_text(text, source, MAX_PREVALENCE_FILE_BYTES, "a few UTF-8 'label<TAB>share' lines",
                                  UsageError)
        entries = [(f"line {number}", line.rstrip("\r").split("\t") if "\t" in line else line.split(None, 1))
                   for number, line in enumerate(content.split("\n"), 1)
                   if line.strip() and not line.startswith("#")]
    else:
        source = option
        entries = [(f"entry {number}", item.split("=", 1)) for number, item in enumerate(text.split(","), 1)]
    result: dict[str, float] = {}
    for where, pair in entries:
        if len(pair) != 2 or not pair[0].strip():
            raise UsageError(f"{source} {where}: expected 'label=share' (or 'label<TAB>share' in a file), "
                             f"found {'='.join(pair)!r}")
        label, share_text = pair[0].strip(), pair[1].strip()
        try:
            share = float(share_text)
        except ValueError:
            raise UsageError(f"{source} {where}: the share of {label!r} must be a number, "
                             f"found {share_text!r}") from None
        if not math.isfinite(share) or share < 0:
            raise UsageError(f"{source} {where}: the share of {label!r} must be a finite number >= 0, "
                             f"found {share_text!r}")
        if label in result:
            raise UsageError(f"{source} {where}: label {label!r} given twice")
        result[label] = share
    if not result:
        raise UsageError(f"{source}: no 'label=share' entry found")
    return result


def check_names(labels: Sequence[str], systems: Sequence[str]) -> None:
    """Refuse a label or system name holding a lone surrogate (U+D800..U+DFFF alone): no
    UTF-8 output (JSON, HTML, PDF, LaTeX, Markdown) can hold it, and escaping it would print
    a name that is not the one given. Files are refused earlier by the loader; this catches
    the Python API and names from undecodable file names or arguments."""
    for kind, names in (("label", labels), ("system name", systems)):
        for name in names:
            try:
                str(name).encode("utf-8")
            except UnicodeEncodeError as error:
                hint = "; name the system with NAME=PATH" if kind == "system name" else ""
                raise UsageError(f"{kind} {name!r} holds a lone surrogate (U+{ord(str(name)[error.start]):04X}) at "
                                 f"character {error.start + 1}; expected valid Unicode text{hint}") from None


def parse_system_argument(argument: str) -> tuple[str, str]:
    """Split a command-line SYSTEM argument into ``(name, path)`` (here, not in the CLI, because
    the planner and the task kinds read SYSTEM arguments too).

    ``NAME=PATH`` names the system; a bare ``PATH`` is named by its file stem. A string that
    is an existing file is always a bare path, even if it contains ``=``.

    Raises
    ------
    InputError
        If the name or the path part of ``NAME=PATH`` is empty.
    """
    if os.path.isfile(argument) or "=" not in argument:
        return Path(argument).stem, argument
    name, path = argument.split("=", 1)
    if not name.strip() or not path:
        raise InputError(
            f"system argument {argument!r}: empty {'name' if not name.strip() else 'path'}; "
            f"expected PATH or NAME=PATH"
        )
    return name.strip(), path


def name_paths(arguments: Sequence[str], stem_name: Callable[[str, str], str] | None = None) -> dict[str, str]:
    """SYSTEM arguments (``PATH`` or ``NAME=PATH``, :func:`parse_system_argument`) -> ``{name: path}``;
    ``stem_name(stem, path)`` may rename a bare PATH (a SemEval team for its submission id). A name
    given twice is refused, naming both paths."""
    named: dict[str, str] = {}
    for argument in arguments:
        name, path = parse_system_argument(argument)
        if stem_name is not None and path == argument:
            name = stem_name(name, path)
        if name in named:
            raise UsageError(f"{named[name]} and {path} are both named {name!r}; name them with NAME=PATH")
        named[name] = path
    return named
