"""The pipeline behind one call: read -> align -> count -> score -> analyse -> record.

``audit(gold, systems, ...)`` gathers the inputs (:func:`gather_inputs`: reads the files, aligns
every item to the gold, counts), scores every metric of every system, then runs :data:`STAGES`,
one line per analysis: the :class:`~auditor.results.Audit` field it fills, what it reads (by
name: an input of the audit, an option of :class:`~auditor.options.AuditOptions`, or an earlier
stage's result) and its module under :mod:`auditor.analyses`, whose ``analyse`` takes exactly
those reads as keyword arguments; its result goes into ``Audit.results`` under the stage's
name and writes its own JSON (``to_json``). Adding an analysis is its module and one line here
(and its report section and its keys in the schema). Each stage draws from its own seeded
stream, so skipping one changes no other's numbers; a stage that did not run has no result
(``audit.X`` is None), absent from the JSON, never filled with placeholders.
"""
from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, Collection, Mapping, Sequence

from auditor.analyses import label_checks
from auditor.analyses.profile import profile
from auditor.errors import InputError, UsageError
from auditor.io.clusters import Clusters
from auditor.io.counts import Counts
from auditor.io.load import LabelColumn, label_column
from auditor.io.names import PREDICTIONS
from auditor.io.source import Source
from auditor.io.validate import LabelTable, align, check_given_labels
from auditor.metrics.catalogue import describe, per_class_table, prevalence_vector
from auditor.metrics.parameterised import informedness_at
from auditor.metrics.registry import REGISTRY, Metric, load_plugin
from auditor.options import INTERVALS, AuditOptions, check_names, check_options, check_prevalence_labels
from auditor.progress import SILENT, Progress
from auditor.results import Audit, SystemResult

if TYPE_CHECKING:
    from auditor.io.scores import AlignedScores
    from auditor.io.slices import SliceGroups


@dataclass(frozen=True)
class Stage:
    """One analysis: the :class:`Audit` field it fills, what it reads (by name), and the module
    under :mod:`auditor.analyses` whose ``analyse(**reads)`` runs it (imported when the stage
    runs, so that scipy loads only for the analyses that need it)."""

    name: str
    reads: tuple[str, ...]
    run: str

    def analyse(self) -> Callable[..., Any]:
        return importlib.import_module(f"auditor.analyses.{self.run}").analyse


#: Every analysis, in the order they run (a stage reads only earlier ones). Names read: ``counts``,
#: ``metrics``, ``values`` (system -> metric id -> number), ``metric_values`` (-> MetricValue),
#: ``profile``, ``progress``, ``tests`` (pairwise tests wanted), the options' fields, the
#: optional inputs (:data:`OPTIONAL_INPUTS`) and earlier stages' names.
STAGES: tuple[Stage, ...] = (
    Stage("baselines", ("counts", "metrics", "seed", "alpha", "correction", "progress", "bootstrap"), "baselines"),
    Stage("statistics", ("counts", "metrics", "bootstrap", "seed", "alpha", "correction", "progress", "tests",
                         "test_metrics", "clusters"),
          "significance"),
    Stage("properties", ("counts", "metrics", "seed"), "properties"),
    Stage("rankings", ("values", "statistics", "metrics", "rank_metrics"), "rankings"),
    Stage("deployment", ("counts", "deployment_prevalence"), "deployment"),
    Stage("recommendation", ("profile", "values", "baselines", "alpha", "deployment_prevalence",
                             "rare_classes_matter"), "recommend"),
    Stage("verdict", ("metrics", "values", "statistics", "recommendation", "profile", "key_metrics"), "verdict"),
    Stage("gold_reliability", ("annotators", "metric_values"), "agreement"),
    Stage("scores", ("scored", "counts", "bootstrap", "seed", "alpha"), "scores"),
    Stage("slices", ("groups", "counts", "metrics", "metric_values", "verdict"), "slices"),
)

#: What a task may choose for the stages (:func:`run`'s ``selections``): the metrics tested pairwise, ranked, and
#: the verdict's key metrics (None: classification's).
SELECTIONS = ("test_metrics", "rank_metrics", "key_metrics")

#: The analyses, in the order they run (each an :class:`Audit` result by this name).
ANALYSES: tuple[str, ...] = tuple(stage.name for stage in STAGES)

#: Inputs an audit may lack; a stage that reads one runs exactly when it is given, whatever
#: ``analyses`` says (annotators, score files, slices given are always analysed).
OPTIONAL_INPUTS = ("annotators", "scored", "groups")

#: The earlier stages each stage reads (from :data:`STAGES`).
READS: dict[str, tuple[str, ...]] = {stage.name: tuple(r for r in stage.reads if r in ANALYSES) for stage in STAGES}


@dataclass(frozen=True)
class Inputs:
    """What an audit reads besides its options, gathered once: the counts, the inputs' sources,
    the label checks' warnings, and the optional inputs aligned to the gold items."""

    counts: Counts
    sources: Mapping[str, Source]
    warnings: tuple[str, ...] = ()
    annotators: LabelTable | None = None
    scored: Mapping[str, AlignedScores] | None = None
    groups: SliceGroups | None = None
    #: The cluster of every item (``--clusters``, ``--lm-eval-cluster``): the resampled unit; None: the items.
    clusters: Clusters | None = None


def gather(gold: Any, systems: Mapping[str, Any], labels: Sequence[str] | None = None) -> LabelTable:
    """Read (from paths) or wrap (arrays, lists, Series) and align gold and system labels; a system's
    file is read as predictions (of a gold copy and a prediction column, the prediction)."""
    if not isinstance(systems, Mapping):
        raise InputError(f"systems: expected a mapping of system name to predictions, e.g. "
                         f"{{'A': [...]}}; found {type(systems).__name__}")
    return align(
        label_column(gold, "<gold>"),
        [(name, label_column(value, f"<{name}>", PREDICTIONS)) for name, value in systems.items()],
        labels,
    )


def prepare_options(options: AuditOptions | None, labels: Sequence[str] | None,
                    overrides: Mapping[str, Any]) -> AuditOptions:
    """The options of one audit: ``options`` with keyword ``overrides`` and ``labels`` applied,
    checked once (:func:`auditor.options.check_options`), its plugins loaded."""
    options = replace(options or AuditOptions(), **overrides)
    if labels is not None:
        options = replace(options, labels=tuple(labels))
    if options.labels is not None:  # before anything sorts them: a None or NA there is refused, not a class
        options = replace(options, labels=tuple(check_given_labels(options.labels)))
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
    label_map: Any = None,
    **option_overrides: Any,
) -> Audit:
    """Audit the evaluation of ``systems`` against ``gold``.

    Parameters
    ----------
    gold : path, list, array or pandas Series of gold labels.
    systems : name -> path, list, array or Series of predicted labels (a path may be a score
        file, one column per label: its argmax is the prediction and its scores are analysed).
    labels : fixed label set and order (default: sorted union of gold and predictions).
    options : :class:`AuditOptions`; keyword arguments override single fields.
    annotators : name -> path, list, array or Series: each annotator's labels of the gold
        items (aligned like systems); adds ``gold_reliability`` (:mod:`auditor.analyses.agreement`).
    slices : path of a slices file (``id<TAB>group``), or groups as a list (by position) or
        dict / Series (by id): adds the ``slices`` section (:mod:`auditor.analyses.slices`).
    analyses : the analyses to run (names of :data:`ANALYSES`, or
        :data:`INTERVALS` for the statistics without their pairwise tests; default: all),
        with the earlier ones they read (:data:`READS`); the others stay ``None``. Inputs
        given (annotators, score files, slices) are always analysed.
    label_map : path of a ``label<TAB>group`` file (``--label-map``), or label -> group: the
        audit counts each item's group (GermEval-2018's fine labels -> OFFENSE/OTHER); every
        label of gold, systems and annotators needs a group, and ``labels`` names groups.

    Examples
    --------
    >>> result = audit(["a", "b", "b"], {"sys": ["a", "b", "a"]}, bootstrap=0)
    >>> round(result.systems["sys"].metrics["accuracy"].value, 4)
    0.6667
    """
    groups, map_source = None, "label_map"
    if label_map is not None:
        from auditor.io.label_map import read_label_map

        map_source = str(label_map) if isinstance(label_map, (str, os.PathLike)) else map_source
        groups = read_label_map(label_map) if isinstance(label_map, (str, os.PathLike)) else dict(label_map)
        option_overrides = {**option_overrides, "label_map": tuple(groups.items())}
    options = prepare_options(options, labels, option_overrides)
    return run(gather_inputs(gold, systems, options.labels, annotators, slices, (groups, map_source),
                             options.clusters), options, progress, analyses)


def gather_inputs(gold: Any, systems: Mapping[str, Any], labels: Sequence[str] | None,
                  annotators: Mapping[str, Any] | None = None, slices: Any = None,
                  label_map: tuple[Mapping[str, str] | None, str] = (None, ""),
                  clusters: str | Clusters | None = None) -> Inputs:
    """Read, align and count: the gold once (systems, annotators, slices and clusters align to its items),
    score files split from label files, slices and clusters checked before any counting (a bad file writes
    nothing); with ``label_map`` (label -> group, and the map's name for messages) every label column counts groups.
    ``clusters``: a clusters file (ids: the gold's item ids, or 1-based item numbers when it has none) or
    :class:`~auditor.io.clusters.Clusters` already in item order."""
    groups, map_source = label_map
    gold_column = grouped(label_column(gold, "<gold>"), groups, map_source)
    systems, scored = split_score_files(gold_column, systems, labels)
    if groups is not None:
        if scored:
            raise UsageError(f"--label-map applies to label files; {', '.join(scored)} hold scores (a column per "
                             f"label): give their predicted labels instead")
        systems = {name: grouped(label_column(value, f"<{name}>", PREDICTIONS), groups, map_source)
                   for name, value in systems.items()} if isinstance(systems, Mapping) else systems
        annotators = None if not annotators else {
            name: grouped(label_column(value, f"<{name}>"), groups, map_source) for name, value in annotators.items()}
    table = gather(gold_column, systems, labels)
    groups = None
    if slices is not None:
        from auditor.io.slices import slice_groups

        groups = slice_groups(slices, table.sources["gold"].path, table.id_array, table.n_items)
    if clusters is not None and not isinstance(clusters, Clusters):
        from auditor.io.clusters import numbered, read_clusters

        ids = numbered(table.n_items) if table.id_array is None else [str(x) for x in table.id_array.to_pylist()]
        clusters = read_clusters(clusters, ids, "item", "item id" if table.id_array is not None else "item number")
    counts = table.counts()
    warnings = label_checks.check(counts, table.sources, labels)
    aligned = None
    if annotators:
        aligned = align(gold_column, [(name, label_column(value, f"<{name}>")) for name, value in annotators.items()],
                        labels)
    aligned_scores = None
    if scored:
        from auditor.io.scores import align_scores

        aligned_scores = {name: align_scores(column, table.id_array, counts.n_items, counts.labels)
                          for name, column in scored.items()}
    return Inputs(counts, table.sources, tuple(warnings), aligned, aligned_scores, groups, clusters)


def grouped(column: LabelColumn, groups: Mapping[str, str] | None, source: str) -> LabelColumn:
    """``column``'s labels replaced by their groups (:func:`auditor.io.label_map.group_labels`), or as it is."""
    if groups is None:
        return column
    from auditor.io.label_map import group_labels

    return group_labels(column, groups, source)


def split_score_files(gold: LabelColumn, systems: Any, labels: Sequence[str] | None) -> tuple[Any, dict[str, Any]]:
    """The systems with each score file (one column per label) replaced by its predictions, and
    the score files' columns by system name (:func:`auditor.io.scores.read_scored`)."""
    if not isinstance(systems, Mapping):  # gather says what was expected
        return systems, {}
    from auditor.io.scores import check_columns, read_scored

    names = set(gold.categories) | set(labels or ())  # the labels themselves are checked by align
    systems, scored = dict(systems), {}
    for name, value in list(systems.items()):
        if isinstance(value, (str, os.PathLike)) and (found := read_scored(value, sorted(names, key=str))) is not None:
            systems[name], scored[name] = found
    check_columns(scored, gold.categories)
    return systems, scored


def refuse_clusters(options: AuditOptions, why: str) -> None:
    """``--clusters`` needs the items one by one (their ids and codes); refused where they are not (``why``)."""
    if options.clusters is not None:
        raise UsageError(f"--clusters needs GOLD and SYSTEM files read in memory (each item's id and labels): {why}")


def audit_dataset(dataset: Any, gold_column: str | None = None, system_columns: Sequence[str] = (),
                  id_column: str | None = None,
                  slice_column: str | None = None, engine: str = "auto", labels: Sequence[str] | None = None,
                  options: AuditOptions | None = None, progress: Progress = SILENT,
                  analyses: Collection[str] | None = None, memory_limit: str | None = None,
                  temp_directory: str | None = None, spark_master: str | None = None, **option_overrides: Any) -> Audit:
    """Audit a table (``dataset``: a file, glob or directory) with a gold column and one column per
    system, counted where it lies by ``engine`` (:mod:`auditor.engines`: memory, duckdb, spark,
    auto); every step after the counts is :func:`run`'s. ``slice_column`` adds ``slices``.
    ``dataset`` may also be an :class:`auditor.engines.Dataset` (e.g. GOLD and SYSTEM files joined
    by id: :func:`auditor.engines.open_label_files`)."""
    from auditor.engines import Dataset, count_dataset, open_dataset

    options = prepare_options(options, labels, option_overrides)
    refuse_clusters(options, "--dataset and --engine count items where they lie, without their ids in memory")
    table = dataset if isinstance(dataset, Dataset) else open_dataset(dataset, gold_column, system_columns,
                                                                        id_column, slice_column)
    counted = count_dataset(table, engine, options.labels, memory_limit, temp_directory, spark_master)
    warnings = tuple(label_checks.check(counted.counts, counted.sources, options.labels))
    return run(Inputs(counted.counts, counted.sources, warnings, groups=counted.groups), options, progress, analyses)


def audit_lm_eval(runs: Sequence[str], task: str | None = None, filter_name: str | None = None, view: str = "acc",
                  options: AuditOptions | None = None, progress: Progress = SILENT,
                  analyses: Collection[str] | None = None, cluster_field: str | None = None,
                  **option_overrides: Any) -> Audit:
    """Audit lm-evaluation-harness runs (``[NAME=]RUN``: a run folder or a samples file, :mod:`auditor.io.lmeval`) of
    one ``task`` under one filter, items paired by ``doc_id``. A multiple-choice task is classification over the
    answer positions (``view``: the prediction audited, ``acc``, ``acc_norm`` or ``both``); a generation task's
    per-item metric (the first the rows log) is audited as outcomes (:mod:`auditor.analyses.outcomes`).
    ``cluster_field`` (a ``doc`` field) or ``--clusters`` (ids: ``doc_id``) clusters the items."""
    from auditor.io.lmeval import GENERATION, label_columns, outcome_values, read_runs

    options = prepare_options(options, None, option_overrides)
    if cluster_field is not None and options.clusters is not None:
        raise UsageError("--lm-eval-cluster and --clusters both give the items' clusters; give one")
    read = read_runs(runs, task, filter_name, cluster_field)
    clusters: Any = options.clusters
    if cluster_field is not None:
        from auditor.io.clusters import from_names

        clusters = from_names(read[0].clusters or (), "item", {"field": cluster_field, "path": read[0].path})
    if read[0].kind == GENERATION:
        from auditor.analyses import outcomes
        from auditor.io.clusters import read_clusters

        metric, values = outcome_values(read)
        if isinstance(clusters, str):
            clusters = read_clusters(clusters, [str(i) for i in read[0].doc_ids], "item", "doc_id")
        sources = {run.name: {"path": run.path, "sha256": run.sha256, "n_items": run.n_items, "filter": run.filter}
                   for run in read}
        inputs = {"lm_eval_task": read[0].task, "lm_eval_filter": read[0].filter, "lm_eval_cluster": cluster_field,
                  **({"clusters": options.clusters} if options.clusters else {})}
        from auditor.report.outcomes import OutcomesAudit

        return OutcomesAudit.of(outcomes.analyse(metric, [run.name for run in read], values, options.bootstrap,
                                                 options.seed, options.alpha, options.correction, sources, clusters,
                                                 inputs))
    gold, systems, labels = label_columns(read, view)
    options = options if options.labels else replace(options, labels=tuple(check_given_labels(labels)))
    return run(gather_inputs(gold, systems, options.labels, clusters=clusters), options, progress, analyses)


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
    refuse_clusters(options, "confusion matrices do not say which item is which")
    from auditor.io.confusion import confusion_counts

    counts, sources = confusion_counts(matrices, options.labels)
    return run(Inputs(counts, sources, tuple(label_checks.check(counts, sources, options.labels))), options,
               progress, analyses)


def audit_metrics(labels: Sequence[str], options: AuditOptions) -> tuple[Metric, ...]:
    """The metrics scored: every registered scalar metric, and informedness at the training
    prevalence when ``--training-prevalence`` gives one."""
    metrics = list(REGISTRY.scalar())
    if options.training_prevalence:
        metrics.append(informedness_at(prevalence_vector(labels, options.training_prevalence)))
    return tuple(metrics)


def run(inputs: Inputs, options: AuditOptions, progress: Progress = SILENT,
        analyses: Collection[str] | None = None, task_metrics: Sequence[Metric] = (),
        selections: Mapping[str, Sequence[str]] | None = None) -> Audit:
    """Score every metric of every system (a task's own ``task_metrics`` after the catalogue's), then run the
    stages in ``analyses`` (default: all) and the ones they read; the :class:`Audit` record of it all.
    ``selections``: a task's own ``test_metrics`` (tested pairwise, best sets), ``rank_metrics`` (ranked) and
    ``key_metrics`` (the verdict's); each absent one is classification's (its analysis's default)."""
    counts = inputs.counts
    check_names(counts.labels, counts.systems)
    check_prevalence_labels(options, counts.labels)
    metrics = (*audit_metrics(counts.labels, options), *task_metrics)
    described = describe(counts.confusion, counts.labels, list(metrics), counts.labels_given)
    systems = {name: SystemResult(name=name, metrics=described[index],
                                  per_class=per_class_table(counts.confusion[index], counts.labels),
                                  confusion=counts.confusion[index])
               for index, name in enumerate(counts.systems)}
    given = [stage.name for stage in STAGES
             if any(getattr(inputs, name, None) is not None for name in stage.reads if name in OPTIONAL_INPUTS)]
    wanted = needed((*(ANALYSES if analyses is None else analyses), *given))
    data_profile = profile(counts)
    reads = {
        **vars(options), "counts": counts, "metrics": metrics, "profile": data_profile, "progress": progress,
        "tests": "statistics" in wanted, "annotators": inputs.annotators, "scored": inputs.scored,
        "groups": inputs.groups, **{name: (selections or {}).get(name) for name in SELECTIONS},
        "clusters": inputs.clusters,
        "metric_values": {name: system.metrics for name, system in systems.items()},
        "values": {name: {metric_id: value.value for metric_id, value in system.metrics.items()}
                   for name, system in systems.items()},
    }
    if INTERVALS in wanted:
        wanted.add("statistics")
    return Audit(labels=counts.labels, n_items=counts.n_items, counts=counts, metrics=metrics, systems=systems,
                 sources=inputs.sources, options=options, profile=data_profile, warnings=inputs.warnings,
                 results=run_stages(reads, wanted))


def run_stages(reads: Mapping[str, Any], wanted: Collection[str]) -> dict[str, Any]:
    """Run the stages of :data:`STAGES` named in ``wanted``, in order, each on its reads (an
    earlier stage's result, or ``reads[name]``); a stage whose optional input is absent is skipped."""
    done: dict[str, Any] = {}
    for stage in STAGES:
        if stage.name not in wanted or any(reads[name] is None for name in stage.reads if name in OPTIONAL_INPUTS):
            continue
        done[stage.name] = stage.analyse()(**{name: done.get(name) if name in ANALYSES else reads[name]
                                              for name in stage.reads})
    return done


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
