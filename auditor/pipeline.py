"""The whole pipeline behind one call: load -> validate -> count -> metrics -> analyses.

``audit(gold, systems, ...)`` returns an :class:`Audit`: the counts, every metric of every
system with its undefined-value notes, and the results of each analysis that ran. Each
analysis module owns its (frozen) result type; ``Audit.to_json`` (:mod:`auditor.results`)
writes the JSON. Options come from :class:`~auditor.options.AuditOptions` alone and are
passed to each analysis. Sections that did not run are absent from the JSON, never filled
with placeholders.
"""
from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Collection, Mapping, Sequence

import numpy as np

from auditor.analyses import label_checks
from auditor.analyses.baselines import chance_baselines
from auditor.io.counts import Counts
from auditor.errors import InputError, UsageError
from auditor.io.load import label_column
from auditor.metrics.catalogue import describe, informedness_at, per_class_table, prevalence_vector
from auditor.options import CHANCE_DRAWS, AuditOptions, check_names, check_options, check_prevalence_labels
from auditor.analyses.profile import profile
from auditor.analyses.properties import property_analysis
from auditor.progress import SILENT, Progress
from auditor.metrics.registry import REGISTRY, load_plugin
from auditor.io.validate import LabelTable, align
from auditor.results import ANALYSES, Audit, SystemResult

if TYPE_CHECKING:
    from auditor.analyses.recommend import Recommendation

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
    analyses: Collection[str] | None = None,
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
    analyses : the analyses to run (names of :data:`~auditor.results.ANALYSES`, or
        :data:`INTERVALS` for the statistics without their pairwise tests; default: all),
        with the earlier ones they read (:data:`READS`); the others stay ``None``. Inputs
        given (annotators, score files, slices) are always analysed.

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
        from auditor.io.scores import check_columns, read_scored

        names = set(gold_column.categories) | set(options.labels or ())
        systems = dict(systems)
        for name, value in list(systems.items()):
            if isinstance(value, (str, os.PathLike)) and (found := read_scored(value, sorted(names))) is not None:
                systems[name], scored[name] = found
        check_columns(scored, gold_column.categories)
    table = gather(gold_column, systems, options.labels)
    groups = None
    if slices is not None:  # read and checked before any counting: a bad file writes nothing
        from auditor.io.slices import slice_groups

        groups = slice_groups(slices, table.sources["gold"]["path"], table.id_array, table.n_items)
    counts = table.counts()
    warnings = label_checks.check(counts, table.sources, options.labels)
    reliability = None
    if annotators:
        from auditor.analyses.agreement import gold_reliability

        aligned = align(gold_column, [(name, label_column(value, f"<{name}>")) for name, value in annotators.items()],
                        options.labels)
        reliability = gold_reliability(np.stack(list(aligned.system_codes.values())), aligned.labels,
                                       tuple(aligned.system_codes))
    result = audit_counts(counts, table.sources, options, progress, warnings,
                          analyses if groups is None or analyses is None else (*analyses, "slices"))
    if reliability is not None:
        result = replace(result, gold_reliability=reliability)
    if scored:
        from auditor.analyses import scores as score_analysis
        from auditor.io.scores import align_scores

        result = replace(result, scores=score_analysis.analyse(
            {name: align_scores(column, table.id_array, counts.n_items, counts.labels) for name, column in scored.items()},
            counts.gold, counts.labels, counts.systems,
            bootstrap=options.bootstrap, seed=options.seed, alpha=options.alpha))
    if groups is not None:
        from auditor.analyses import slices as slice_analysis

        key_metrics = result.verdict.key_metrics if result.verdict is not None else (result.metrics[0].id,)
        result = replace(result, slices=slice_analysis.analyse(
            groups.names, groups.codes, counts, result.metrics, key_metrics,
            {name: system.metrics for name, system in result.systems.items()}, groups.source))
    return result


def audit_confusion(
    matrices: Mapping[str, Any],
    labels: Sequence[str] | None = None,
    options: AuditOptions | None = None,
    progress: Progress = SILENT,
    analyses: Collection[str] | None = None,
    **option_overrides: Any,
) -> Audit:
    """Audit systems known only by their confusion matrices (rows = gold, columns = predicted).

    Parameters
    ----------
    matrices : system name -> matrix file (see the module docstring) or (k, k) array of counts.
    labels : label order of array matrices (required for arrays); for files, the same set in
        the order wanted.
    options : :class:`AuditOptions`; keyword arguments override single fields.
    analyses : the analyses to run, as for :func:`audit`.

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
    return audit_counts(counts, sources, options, progress, warnings, analyses)


def audit_counts(counts: Counts, sources: dict[str, dict[str, Any]], options: AuditOptions,
                 progress: Progress = SILENT, warnings: Sequence[str] = (),
                 analyses: Collection[str] | None = None) -> Audit:
    """The part of :func:`audit` after counting (also used for a bare confusion matrix);
    ``warnings`` are the label checks' (:mod:`auditor.analyses.label_checks`), ``analyses``
    as for :func:`audit`."""
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
        systems=results, sources=sources, options=options, profile=profile(counts), warnings=tuple(warnings),
    )
    return run_analyses(result, progress, ANALYSES if analyses is None else analyses)


#: The earlier analyses each analysis reads (the slices' leaders use the verdict's key metrics).
READS = {
    "rankings": ("statistics",), "recommendation": ("baselines",), "verdict": ("statistics", "recommendation"),
    "slices": ("verdict",),
}


#: The part of ``statistics`` that ``auditor score``'s table shows: the bootstrap intervals and
#: rank distributions, without the pairwise tests and best sets (the costlier half at many systems).
INTERVALS = "intervals"


def needed(analyses: Collection[str]) -> set[str]:
    """``analyses`` and every analysis they read, transitively (:data:`READS`)."""
    unknown = set(analyses) - {*ANALYSES, INTERVALS}
    if unknown:
        raise UsageError(f"analyses: unknown {', '.join(sorted(unknown))}; "
                         f"expected some of {', '.join((*ANALYSES, INTERVALS))}")
    wanted, todo = set(), list(analyses)
    while todo:
        name = todo.pop()
        if name not in wanted:
            wanted.add(name)
            todo.extend(READS.get(name, ()))
    return wanted


def run_analyses(result: Audit, progress: Progress = SILENT, analyses: Collection[str] = ANALYSES) -> Audit:
    """Run the analysis stages in order — those in ``analyses`` and the ones they read; returns
    ``result`` with their fields set. Each stage is a function of its inputs (counts, metric
    values, options) and of earlier stages' results, and draws from its own seeded stream, so
    skipping one changes no other's numbers.
    """
    options = result.options
    wanted = needed(analyses)
    # Chance baselines: a few k x k hypergeometric draws per system, cheap at any N.
    baselines = None
    if "baselines" in wanted:
        baselines = chance_baselines(
            result.counts, result.metrics, draws=CHANCE_DRAWS, seed=options.seed, alpha=options.alpha,
            correction=options.correction, progress=progress,
        )
    # Paired bootstrap intervals, rank distributions, pairwise tests and best sets (--bootstrap 0: off;
    # INTERVALS alone: the bootstrap only, whose draws do not depend on whether the tests follow).
    statistics = None
    if ("statistics" in wanted or INTERVALS in wanted) and options.bootstrap > 0:
        from auditor.analyses.significance import statistics as run_statistics

        statistics = run_statistics(
            result.counts, result.metrics, B=options.bootstrap, seed=options.seed, alpha=options.alpha,
            correction=options.correction, progress=progress, all_labels_active=result.counts.labels_given,
            tests="statistics" in wanted,
        )
    result = replace(result, baselines=baselines, statistics=statistics)
    # Metric properties (PI, PII, PIV, PV) probed on random, adversarial and the systems' own matrices.
    if "properties" in wanted:
        result = replace(result, properties=property_analysis(result.metrics, result.counts.confusion,
                                                              result.counts.systems, seed=options.seed))
    # Rank disagreement (uses the statistics' tests and P(win) when they ran), then the rankings
    # under the deployment prevalence (--deployment-prevalence, unless unset or "unknown").
    from auditor.analyses import rankings

    values = {name: {metric_id: value.value for metric_id, value in system.metrics.items()}
              for name, system in result.systems.items()}
    if "rankings" in wanted:
        result = replace(result, rankings=rankings.rank_analysis(values, rankings.DEFAULT_METRICS, statistics))
    if "deployment" in wanted:
        result = replace(result, deployment=rankings.deployment_analysis(
            result.counts.confusion, result.labels, result.counts.systems, options.deployment_prevalence,
            result.counts.labels_given))
    # The recommendation last: it reads the profile, the baselines and the user's intent.
    from auditor.analyses.recommend import recommendation_analysis

    if "recommendation" in wanted:
        result = replace(result, recommendation=recommendation_analysis(
            result.profile, values, result.baselines, alpha=options.alpha,
            deployment_prevalence=options.deployment_prevalence, rare_classes_matter=options.rare_classes_matter))
    if "verdict" not in wanted:
        return result
    # The verdict: leaders (best sets) per key metric, order, ties.
    from auditor.analyses import verdict

    return replace(result, verdict=verdict.analyse(
        {metric.id: {name: system.metrics[metric.id].value for name, system in result.systems.items()}
         for metric in result.metrics if not metric.per_class},
        statistics, _recommended_primary(result.recommendation), result.profile.identical_systems,
        {metric.id: metric.label for metric in result.metrics},
    ))


def _recommended_primary(recommendation: Recommendation | None) -> str | None:
    """The recommendation's primary metric id, if it names one."""
    for entry in (recommendation.metrics if recommendation is not None else ()):
        if entry.role == "primary":
            return entry.id
    return None
