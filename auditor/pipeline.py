"""The whole pipeline behind one call: load -> validate -> count -> metrics -> analyses.

``audit(gold, systems, ...)`` returns an :class:`Audit`: the counts, every metric of every
system with its undefined-value notes, and the results of each analysis that ran. Each
analysis module owns its result type and its JSON section; ``Audit.to_json`` only gathers
them. Sections that did not run are absent from the JSON, never filled with placeholders.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.version import __version__
from auditor.analyses import label_checks
from auditor.analyses.baselines import chance_baselines
from auditor.io.counts import Counts
from auditor.errors import InputError
from auditor.io.load import label_column
from auditor.metrics.catalogue import MetricValue, describe, informedness_at, per_class_table, prevalence_vector
from auditor.options import check_names, check_options, check_prevalence_labels
from auditor.analyses.profile import DataProfile, profile
from auditor.analyses.properties import property_analysis
from auditor.progress import SILENT, Progress
from auditor.metrics.registry import REGISTRY, Metric, load_plugin
from auditor.io.validate import LabelTable, align

SCHEMA = "auditor/1"


@dataclass(frozen=True)
class AuditOptions:
    """Everything that changes an audit's numbers; all of it goes into the signature.

    ``bootstrap`` resamples (0 = off), ``seed`` for every random draw, ``alpha`` for
    intervals and tests, ``correction`` for multiple comparisons (``holm`` or ``bh``),
    ``training_prevalence`` label -> share (adds ``informedness_train``),
    ``deployment_prevalence`` (``uniform``, ``test``, ``unknown`` or label -> share),
    ``rare_classes_matter`` (intent for the recommendation), ``plugins`` (modules that
    register extra metrics).
    """

    labels: tuple[str, ...] | None = None
    bootstrap: int = 1000
    seed: int = 12345
    alpha: float = 0.05
    correction: str = "holm"
    training_prevalence: Mapping[str, float] | None = None
    deployment_prevalence: str | Mapping[str, float] | None = None
    rare_classes_matter: bool = False
    plugins: tuple[str, ...] = ()


@dataclass
class SystemResult:
    """One system's metric values, per-class table and confusion matrix."""

    name: str
    metrics: dict[str, MetricValue]
    per_class: dict[str, dict[str, Any]]
    confusion: np.ndarray


@dataclass
class Audit:
    """Result of :func:`audit`. Analysis results are ``None`` until their stage has run."""

    labels: tuple[str, ...]
    n_items: int
    counts: Counts
    metrics: tuple[Metric, ...]
    systems: dict[str, SystemResult]
    sources: dict[str, dict[str, Any]]
    options: AuditOptions
    profile: DataProfile
    analyses: dict[str, Any] = field(default_factory=dict)
    #: Label-check warnings (:mod:`auditor.analyses.label_checks`), printed by the CLI and on page 1.
    warnings: list[str] = field(default_factory=list)

    @property
    def signature(self) -> str:
        """``auditor:<version>|gold:<sha256[:12]>|systems:<n>|labels:<k>|boot:B|seed:S|ci:percentile``."""
        gold_hash = (self.sources.get("gold", {}).get("sha256") or _hash_codes(self.counts.gold, self.labels))[:12]
        systems_hash = hashlib.sha256(
            "|".join(f"{name}:{self.sources.get(name, {}).get('sha256') or ''}" for name in self.counts.systems).encode()
        ).hexdigest()[:12]
        parts = [
            f"auditor:{__version__}", f"gold:{gold_hash}", f"systems:{len(self.systems)}:{systems_hash}",
            f"labels:{len(self.labels)}", f"boot:{self.options.bootstrap}", f"seed:{self.options.seed}",
            "ci:percentile", f"alpha:{self.options.alpha}", f"correction:{self.options.correction}",
        ]
        if self.options.plugins:
            parts.append("plugins:" + ",".join(self.options.plugins))
        if not self.counts.paired:  # confusion matrices only: each matrix bootstrapped on its own
            parts.append("input:confusion")
        if "slices" in self.analyses:
            source = self.analyses["slices"].source
            parts.append(f"slices:{(source.get('sha256') or '')[:12]}")
        return "|".join(parts)

    def to_json(self) -> dict[str, Any]:
        """The audit JSON of DESIGN.md ("Interfaces"); ``null`` for undefined values."""
        systems = {}
        for name, result in self.systems.items():
            systems[name] = {
                "metrics": {metric_id: _metric_json(value) for metric_id, value in result.metrics.items()},
                "per_class": result.per_class,
                "confusion": result.confusion.tolist(),
            }
        document: dict[str, Any] = {
            "schema": SCHEMA,
            "signature": self.signature,
            "labels": list(self.labels),
            "n_items": self.n_items,
            "orientation": "rows = gold class, columns = predicted class",
            "sources": self.sources,
            "profile": self.profile.to_json(),
            "warnings": list(self.warnings),
            "systems": systems,
        }
        for analysis in self.analyses.values():
            analysis.add_to_json(document)
        return document


def _metric_json(value: MetricValue) -> dict[str, Any]:
    return {"value": value.value, "ci": None, "undefined": value.undefined, "convention": value.convention}


def _hash_codes(codes: np.ndarray, labels: Sequence[str]) -> str:
    digest = hashlib.sha256("\x1f".join(labels).encode())
    digest.update(np.ascontiguousarray(codes, dtype=np.int64).tobytes())
    return digest.hexdigest()


def gather(gold: Any, systems: Mapping[str, Any], labels: Sequence[str] | None = None) -> LabelTable:
    """Load (from paths) or wrap (arrays, lists, Series) and align gold and system labels."""
    if not isinstance(systems, Mapping):
        raise InputError(f"systems: expected a mapping of system name to predictions, e.g. "
                         f"{{'A': [...]}}; found {type(systems).__name__}")
    return align(
        label_column(gold, "<gold>"),
        [(name, label_column(value, f"<{name}>")) for name, value in systems.items()],
        labels,
    )


def prepare_options(options: AuditOptions | None, labels: Sequence[str] | None,
                    overrides: Mapping[str, Any]) -> AuditOptions:
    """The options of one audit: ``options`` with keyword ``overrides`` and ``labels`` applied,
    checked once (:func:`auditor.options.check_options`), its plugins loaded."""
    options = replace(options or AuditOptions(), **overrides)
    if labels is not None:
        options = replace(options, labels=tuple(labels))
    check_options(options)
    for module in options.plugins:
        load_plugin(module)
    return options


def audit(
    gold: Any,
    systems: Mapping[str, Any],
    labels: Sequence[str] | None = None,
    options: AuditOptions | None = None,
    progress: Progress = SILENT,
    annotators: Mapping[str, Any] | None = None,
    slices: Any = None,
    **option_overrides: Any,
) -> Audit:
    """Audit the evaluation of ``systems`` against ``gold``.

    Parameters
    ----------
    gold : path, list, array or pandas Series of gold labels.
    systems : name -> path, list, array or Series of predicted labels.
    labels : fixed label set and order (default: sorted union of gold and predictions).
    options : :class:`AuditOptions`; keyword arguments override single fields.
    annotators : name -> path, list, array or Series: each annotator's labels of the gold
        items (aligned like systems); adds ``gold_reliability`` (:mod:`auditor.analyses.agreement`).
    slices : path of a slices file (``id<TAB>group``), or groups as a list (by position) or
        dict / Series (by id): adds the ``slices`` section (:mod:`auditor.analyses.slices`).

    Examples
    --------
    >>> result = audit(["a", "b", "b"], {"sys": ["a", "b", "a"]}, bootstrap=0)
    >>> round(result.systems["sys"].metrics["accuracy"].value, 4)
    0.6667
    """
    options = prepare_options(options, labels, option_overrides)
    gold_column = label_column(gold, "<gold>")  # read once: systems, annotators and slices align to its items
    scored: dict[str, Any] = {}
    if isinstance(systems, Mapping):  # score files (one column per label): predictions + scores
        from auditor.analyses.scores import check_columns, read_scored

        names = set(gold_column.categories) | set(options.labels or ())
        systems = dict(systems)
        for name, value in list(systems.items()):
            if isinstance(value, (str, os.PathLike)) and (found := read_scored(value, sorted(names))) is not None:
                systems[name], scored[name] = found
        check_columns(scored, gold_column.categories)
    table = gather(gold_column, systems, options.labels)
    group_column = group_codes = None
    if slices is not None:  # read and checked before any counting: a bad file writes nothing
        from auditor.analyses.slices import align_groups, read_slices

        group_column = read_slices(slices)
        group_codes = align_groups(group_column, table.sources["gold"]["path"], table.id_array, table.n_items)
    counts = table.counts()
    warnings = label_checks.check(counts, table.sources, options.labels)
    reliability = None
    if annotators:
        from auditor.analyses.agreement import gold_reliability

        aligned = align(gold_column, [(name, label_column(value, f"<{name}>")) for name, value in annotators.items()],
                        options.labels)
        reliability = gold_reliability(np.stack(list(aligned.system_codes.values())), aligned.labels,
                                       tuple(aligned.system_codes))
    result = audit_counts(counts, table.sources, options, progress)
    result.warnings.extend(warnings)
    if reliability is not None:
        reliability.systems.update({name: {metric: system.metrics[metric].value for metric in ("accuracy", "kappa")
                                           if metric in system.metrics}
                                    for name, system in result.systems.items()})
        result.analyses["gold_reliability"] = reliability
    if scored:
        from auditor.analyses import scores as score_analysis

        result.analyses["scores"] = score_analysis.analyse(result, scored, table.id_array)
    if group_column is not None:
        from auditor.analyses import slices as slice_analysis

        result.analyses["slices"] = slice_analysis.analyse(result, group_column, group_codes)
    return result


def audit_confusion(
    matrices: Mapping[str, Any],
    labels: Sequence[str] | None = None,
    options: AuditOptions | None = None,
    progress: Progress = SILENT,
    **option_overrides: Any,
) -> Audit:
    """Audit systems known only by their confusion matrices (rows = gold, columns = predicted).

    Parameters
    ----------
    matrices : system name -> matrix file (see the module docstring) or (k, k) array of counts.
    labels : label order of array matrices (required for arrays); for files, the same set in
        the order wanted.
    options : :class:`AuditOptions`; keyword arguments override single fields.

    Examples
    --------
    >>> result = audit_confusion({"A": [[0, 10], [20, 70]]}, labels=["x", "y"], bootstrap=0)
    >>> result.systems["A"].metrics["accuracy"].value
    0.7
    """
    options = prepare_options(options, labels, option_overrides)
    from auditor.io.confusion import confusion_counts

    counts, sources = confusion_counts(matrices, options.labels)
    warnings = label_checks.check(counts, sources, options.labels)
    result = audit_counts(counts, sources, options, progress)
    result.warnings.extend(warnings)
    return result


def audit_counts(counts: Counts, sources: dict[str, dict[str, Any]], options: AuditOptions,
                 progress: Progress = SILENT) -> Audit:
    """The part of :func:`audit` after counting (also used for a bare confusion matrix)."""
    check_names(counts.labels, counts.systems)
    check_prevalence_labels(options, counts.labels)
    metrics = list(REGISTRY.scalar())
    if options.training_prevalence:
        metrics.append(informedness_at(prevalence_vector(counts.labels, options.training_prevalence)))
    values = describe(counts.confusion, counts.labels, metrics, counts.labels_given)
    results = {
        name: SystemResult(name=name, metrics=values[index],
                           per_class=per_class_table(counts.confusion[index], counts.labels),
                           confusion=counts.confusion[index])
        for index, name in enumerate(counts.systems)
    }
    result = Audit(
        labels=counts.labels, n_items=counts.n_items, counts=counts, metrics=tuple(metrics),
        systems=results, sources=sources, options=options, profile=profile(counts),
    )
    run_analyses(result, progress)
    return result


def run_analyses(result: Audit, progress: Progress = SILENT) -> None:
    """Run every analysis stage in order; each stores its result in ``result.analyses``."""
    # Chance baselines always run: a few k x k hypergeometric draws per system, cheap at any N.
    result.analyses["baselines"] = chance_baselines(
        result.counts, result.metrics, seed=result.options.seed, progress=progress, alpha=result.options.alpha,
    )
    # Paired bootstrap intervals, rank distributions, pairwise tests and best sets (--bootstrap 0: off).
    if result.options.bootstrap > 0:
        from auditor.analyses.significance import statistics

        result.analyses["statistics"] = statistics(
            result.counts, result.metrics, B=result.options.bootstrap, seed=result.options.seed,
            alpha=result.options.alpha, correction=result.options.correction, progress=progress,
            all_labels_active=result.counts.labels_given,
        )
    # Metric properties (PI, PII, PIV, PV) probed on random, adversarial and the systems' own matrices.
    result.analyses["properties"] = property_analysis(result)
    # Rank disagreement (uses the statistics' tests and P(win) when they ran), then the rankings
    # under the deployment prevalence (--deployment-prevalence, unless unset or "unknown").
    from auditor.analyses import rankings

    result.analyses["rankings"] = rankings.analyse(result)
    shifted = rankings.analyse_deployment(result)
    if shifted is not None:
        result.analyses["deployment"] = shifted
    # The recommendation last: it reads the profile, the baselines and the user's intent.
    from auditor.analyses.recommend import analyse as recommendation

    result.analyses["recommendation"] = recommendation(result)
    # The verdict reads all of the above: leaders (best sets) per key metric, order, ties.
    from auditor.analyses import verdict

    result.analyses["verdict"] = verdict.analyse(result)
