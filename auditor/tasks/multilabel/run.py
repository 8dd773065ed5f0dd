"""The multi-label audit: read -> thresholds -> align -> count -> figures -> item bootstrap, tests -> rankings."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.errors import InputError, UsageError
from auditor.options import AuditOptions, check_options
from auditor.progress import SILENT, Progress
from auditor.results import Signature
from auditor.tasks.multilabel.align import Aligned, align
from auditor.tasks.multilabel.checks import check
from auditor.tasks.multilabel.counting import count
from auditor.tasks.multilabel.label_columns import read_thresholds, threshold_sets, threshold_vector
from auditor.tasks.multilabel.measures import BY_ID, KEY_METRICS, METRIC_IDS, SHORT, evaluate_with_undefined
from auditor.tasks.multilabel.reading import SEPARATOR, read_sets
from auditor.tasks.multilabel.result import MultilabelAudit, Thresholding
from auditor.tasks.multilabel.sets import SetFile
from auditor.version import __version__


def read_label_map(path: str) -> dict[str, str]:
    """``label<TAB>group`` lines (a header line allowed) -> label -> group (:mod:`auditor.io.label_map`)."""
    from auditor.io.label_map import read_label_map as read

    return read(path)


def _thresholded(files: Mapping[str, SetFile], threshold: float | None, thresholds: str | None
                 ) -> tuple[dict[str, SetFile], Thresholding | None]:
    """Score files made sets at the thresholds; a threshold without any score file is refused."""
    scored = [name for name, file in files.items() if file.scores is not None]
    if not scored:
        if threshold is not None or thresholds:
            option = "--thresholds" if thresholds else "--threshold"
            raise UsageError(f"{option} applies to per-label scores, and no system file holds scores (a column per "
                             f"label with values in [0, 1])")
        return dict(files), None
    per_label = read_thresholds(thresholds) if thresholds else None
    out, vectors = dict(files), {}
    for name in scored:
        vectors[name] = threshold_vector(files[name].labels, threshold, per_label, thresholds or "--threshold")
        out[name] = threshold_sets(files[name], vectors[name])
    how = "per label (--thresholds)" if thresholds else "given (--threshold)" if threshold is not None else \
        "default 0.5 (no --threshold given)"
    return out, Thresholding(tuple(scored), vectors, how, {name: files[name] for name in scored})


def read_inputs(gold: str | None, systems: Mapping[str, str], separator: str) -> tuple[SetFile, dict[str, SetFile]]:
    if gold is None or not systems:
        raise UsageError("missing " + ("GOLD and SYSTEMS" if gold is None else "SYSTEMS")
                         + ": give a gold file and at least one system file")
    from concurrent.futures import ThreadPoolExecutor

    from auditor.options import THREADS

    roles = ["gold"] + ["system"] * len(systems)
    with ThreadPoolExecutor(THREADS) as pool:  # arrow parses and hashes with the GIL released
        files = list(pool.map(lambda path, role: read_sets(path, separator, role), [gold, *systems.values()], roles))
    gold_file = files[0]
    if gold_file.scores is not None:
        raise InputError(f"{gold_file.source}: gold holds scores (values other than 0 and 1); expected label sets")
    return gold_file, dict(zip(systems, files[1:]))


def _clusters(options: AuditOptions, gold_file: Any, aligned: Any) -> Any:
    """The items' clusters from ``--clusters`` (ids: the gold's item ids, or 1-based item numbers), or None."""
    if options.clusters is None:
        return None
    from auditor.io.clusters import numbered_clusters, read_clusters

    ids = gold_file.column.id_array
    if ids is None:
        return numbered_clusters(options.clusters, aligned.n_items, "item")
    return read_clusters(options.clusters, [str(x) for x in ids.to_pylist()], "item", "item id")


def audit(gold: str | None, systems: Mapping[str, str], *, options: AuditOptions | None = None,
          progress: Progress = SILENT, analyses: Sequence[str] | None = None, label_separator: str | None = None,
          threshold: float | None = None, thresholds: str | None = None, label_map: str | None = None
          ) -> MultilabelAudit:
    """The multi-label audit of ``systems`` ({name: path}) against ``gold`` (a path)."""
    options = options or AuditOptions()
    check_options(options)
    check(options, label_separator, threshold, thresholds, label_map)
    separator = SEPARATOR if label_separator is None else label_separator
    groups = read_label_map(label_map) if label_map else None
    with progress.task("reading label sets", total=1) as advance:
        gold_file, files = read_inputs(gold, systems, separator)
        advance(1)
    files, thresholding = _thresholded(files, threshold, thresholds)
    aligned = align(gold_file, files, options.labels, groups, label_map or "--label-map")
    counted = count(aligned)
    statistics = None
    tested = analyses is None or "statistics" in analyses
    if (options.bootstrap > 0 or tested) and (analyses is None or "intervals" in analyses or tested):
        from auditor.tasks.multilabel.resampling import item_statistics

        with progress.task("bootstrap over items", total=1) as advance:
            statistics = item_statistics(aligned, counted, options, tested, _clusters(options, gold_file, aligned))
            advance(1)
    sources = {"gold": _source(gold_file), **{name: _source(file) for name, file in files.items()}}
    chance = None
    if analyses is None or "baselines" in analyses:
        from auditor.tasks.multilabel.chance import DRAWS, baselines

        with progress.task("chance baselines", total=1) as advance:
            chance = baselines(aligned, options.seed, DRAWS if options.bootstrap > 0 else 0, options.alpha)
            advance(1)
    result = MultilabelAudit(
        signature=_signature(gold_file, aligned, options, thresholding, separator, label_map is not None),
        options=options, sources=sources, aligned=aligned, counted=counted, statistics=statistics,
        thresholding=thresholding, separator=separator, label_map=groups,
        analyses=None if analyses is None else tuple(analyses), warnings=_warnings(aligned, counted), chance=chance)
    curves = None
    if thresholding is not None and groups is None and (analyses is None or "thresholds" in analyses):
        from auditor.tasks.multilabel.thresholds import curves as threshold_curves

        curves = threshold_curves(aligned, thresholding.files, aligned.positions or {}, thresholding.thresholds)
    result = replace(result, threshold_curves=curves)
    recommendation = None
    if analyses is None or "recommendation" in analyses:
        from auditor.tasks.multilabel.recommend import recommend

        recommendation = recommend(result)
    ranking, verdict = _rankings(aligned, counted, statistics, analyses,
                                 recommendation.primary if recommendation is not None else None)
    return replace(result, ranking=ranking, verdict=verdict, recommendation=recommendation)


def oriented_values(aligned: Aligned, counted: Any) -> dict[str, dict[str, float | None]]:
    """system -> id -> value with higher better (Hamming loss negated), None where 0/0 as a whole."""
    values = evaluate_with_undefined(counted.sums)
    return {name: {m: None if values[m][1][s] else float(values[m][0][s]) * (1 if BY_ID[m].higher_is_better else -1)
                   for m in METRIC_IDS} for s, name in enumerate(aligned.names)}


def _rankings(aligned: Aligned, counted: Any, statistics: Any, analyses: Sequence[str] | None,
              primary: str | None) -> tuple[Any, Any]:
    """Rank disagreement (:mod:`auditor.analyses.rankings`) and the verdict (:mod:`auditor.analyses.verdict`)
    on the key metrics; both read best sets and tests from the item statistics when they ran."""
    if analyses is not None and "rankings" not in analyses:
        return None, None
    from auditor.analyses.families import RANDOMISATION, significance_lookup
    from auditor.analyses.profile import identical_rows
    from auditor.analyses.rankings import rank_disagreement
    from auditor.analyses.verdict import Tested, decide
    from auditor.tasks.multilabel.resampling import primary_method

    values = oriented_values(aligned, counted)
    tested = None if statistics is None or statistics.tests is None else Tested(statistics.best_set or {},
                                                                                statistics.tests)
    method_of = primary_method if statistics is None or statistics.clusters is None else \
        (lambda metric: RANDOMISATION)
    lookup = None if tested is None else significance_lookup(tested.tests, statistics.alpha, method_of)
    ranking = rank_disagreement(values, METRIC_IDS, lookup)
    by_metric = {m: {name: values[name][m] for name in aligned.names} for m in METRIC_IDS}
    identical = identical_rows(aligned.names, [np.packbits(aligned.system(s), axis=1)
                                               for s in range(len(aligned.names))])
    verdict = decide(by_metric, tested, primary, identical, SHORT, KEY_METRICS)
    return ranking, verdict


def _source(file: SetFile) -> dict[str, Any]:
    return {"path": file.source, "sha256": file.column.sha256, "n_items": len(file), "layout": file.layout}


def _warnings(aligned: Aligned, counted: Any) -> tuple[str, ...]:
    warnings = []
    for s, name in enumerate(aligned.names):
        if counted.empty(s) == aligned.n_items:
            warnings.append(f"{name} predicts the empty set for every item")
    never = np.flatnonzero(counted.sums["gold"] == 0)
    if never.size:
        shown = ", ".join(aligned.labels[i] for i in never[:5])
        warnings.append(f"{never.size} label{'s' if never.size != 1 else ''} never in gold ({shown}): "
                        f"recall and F1 of such a label are 0/0 or 0")
    return tuple(warnings)


def _signature(gold: SetFile, aligned: Aligned, options: AuditOptions, thresholding: Thresholding | None,
               separator: str, mapped: bool) -> Signature:
    """The shared fields (version, gold hash, systems, bootstrap, seed, interval) and the task's own (labels, label
    map, thresholds, resampling unit)."""
    threshold = "none" if thresholding is None else thresholding.signature_part()
    return Signature((("auditor", __version__), ("task", "multilabel"), ("gold", (gold.column.sha256 or "")[:12]),
                      ("systems", str(len(aligned.names))), ("labels", str(len(aligned.labels))),
                      ("map", "yes" if mapped else "no"), ("threshold", threshold), ("boot", str(options.bootstrap)),
                      ("unit", "item" if options.clusters is None else f"cluster:{_sha(options.clusters)[:12]}"),
                      ("seed", str(options.seed)), ("ci", "percentile")))


def _sha(path: str) -> str:
    import hashlib
    from pathlib import Path

    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
