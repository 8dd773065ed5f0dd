"""The translation audit: read -> count -> metrics -> resample -> rankings, bands, human agreement
-> recommendation (the same verbs as the classification pipeline, docs/architecture.md, "Data flow")."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.analyses.intervals import jackknife_se
from auditor.analyses.profile import identical_rows
from auditor.analyses.units import UnitStatistics
from auditor.errors import UsageError
from auditor.files import file_sha256
from auditor.formatting import format_small, plural
from auditor.io.clusters import numbered_clusters
from auditor.options import AuditOptions, check_options
from auditor.progress import SILENT, Progress
from auditor.results import (
    Score,
    Signature,
    unit_options,
    unit_rankings,
    unit_scores,
    unit_statistics_stage,
    unit_verdict,
)
from auditor.tasks.translation import intervals as interval_module
from auditor.tasks.translation import resampling
from auditor.tasks.translation.agreement import agreement
from auditor.tasks.translation.bands import profile
from auditor.tasks.translation.counting import Corpus, count_corpus
from auditor.tasks.translation.names import METRICS, NAMES, TOKENIZERS
from auditor.tasks.translation.reading import read_aligned, read_human
from auditor.tasks.translation.recommend import recommend
from auditor.tasks.translation.result import TranslationAudit
from auditor.tasks.translation.segments import segment_agreement

#: Up to this many systems every pair is tested; above it, each system against the leader of each metric
#: (approximate randomisation of type-level F costs rounds x types per pair, and the rounds grow with the pairs).
ALL_PAIRS = 8


def _sources(references: Sequence[str | Path], systems: Mapping[str, str | Path], human: str | Path | None,
             corpus: Corpus, clusters: Any) -> dict[str, Any]:
    """audit.json's ``sources``: each reference (the first is ``gold``), system (with its empty segments), the human
    scores and the clusters, by path and SHA-256 of the file as stored."""
    n = corpus.n_segments
    sources: dict[str, Any] = {("gold" if i == 0 else f"reference {i + 1}"): {
        "path": str(p), "sha256": file_sha256(p), "n_items": n} for i, p in enumerate(references)}
    sources.update({name: {"path": str(p), "sha256": file_sha256(p), "n_items": n,
                           "empty_segments": corpus.empty[name]} for name, p in systems.items()})
    if human is not None:
        sources["human"] = {"path": str(human), "sha256": file_sha256(human)}
    return sources | ({"clusters": dict(clusters.source or {})} if clusters else {})


def _check(tokenize: str, beta: float, k: float, systems: Mapping[str, Any], gold: Any) -> None:
    if gold is None or not systems:
        raise UsageError("--task translation needs REF and at least one SYSTEM: text files of one segment per line")
    if tokenize not in TOKENIZERS:
        raise UsageError(f"--tokenize: expected one of {', '.join(TOKENIZERS)}, found {tokenize!r}")
    if not 1e-100 <= beta <= 1e100:
        raise UsageError(f"--f-beta: expected a number > 0 (from 1e-100 to 1e100, so that β² stays a finite, nonzero "
                         f"double), found {beta!r}")
    if not 1 <= k <= 1e100:
        raise UsageError(f"--microf-k: expected a number >= 1 (Gowda et al. 2021: f(c) = Refs(c) + k, k ≥ 1; at most "
                         f"1e100, so that the weights' sums stay finite), found {k!r}")


def audit(gold: str | Path, systems: Mapping[str, str | Path], *, options: AuditOptions = AuditOptions(),
          progress: Progress = SILENT, analyses: Sequence[str] | None = None,
          reference: Sequence[str | Path] = (), tokenize: str = "13a", lowercase: bool = False,
          human: str | Path | None = None, human_lower_better: bool = False, f_beta: float = 1.0,
          microf_k: float = 1.0) -> TranslationAudit:
    """Audit translation ``systems`` ({name: path}) against the reference ``gold`` (and ``reference``)."""
    tokenize = tokenize or "13a"
    f_beta = 1.0 if f_beta is None else float(f_beta)  # 0 is refused, never read as the default
    microf_k = 1.0 if microf_k is None else float(microf_k)
    check_options(options, "translation")
    _check(tokenize, f_beta, microf_k, systems, gold)
    references = [gold, *(reference or ())]
    files = {f"reference {i + 1}": path for i, path in enumerate(references)} | dict(systems)
    texts = read_aligned(files)
    with progress.task("tokenising and counting", total=1) as advance:
        corpus = count_corpus([texts[f"reference {i + 1}"] for i in range(len(references))],
                              {name: texts[name] for name in systems}, tokenize, bool(lowercase))
        advance(1)
    human_scores = None if human is None else read_human(human, corpus.systems, corpus.n_segments,
                                                         bool(human_lower_better))
    prepared = resampling.prepare(corpus, f_beta)
    observed = resampling.point_scores(corpus, f_beta, microf_k, prepared)
    clusters, units, resampled = _resampled(corpus, human_scores, options, f_beta, microf_k, progress, prepared)
    stats = _statistics(units or corpus, observed, resampled, clusters, options, analyses, f_beta, microf_k, progress)
    metrics = _metric_values(corpus, observed, stats, options.alpha)
    values = {s: {m: metrics[s][m].value for m in resampling.METRICS} for s in corpus.systems}
    disagreement = unit_rankings(metrics, resampling.METRICS, stats.tests, options.alpha)
    types = profile(corpus, f_beta)
    human_result = _human(corpus, observed, human_scores, resampled, options.alpha, bool(human_lower_better),
                          f_beta, microf_k)
    opts = unit_options(options, tokenize=tokenize, lowercase=bool(lowercase), f_beta=f_beta, microf_k=microf_k,
                        references=len(references), sacrebleu=dict(corpus.signatures))
    sources = _sources(references, systems, human, corpus, clusters)
    recommendation = recommend(corpus, types, disagreement, human_result, values, options.alpha)
    primary = recommendation.primary
    if clusters is not None:
        stats = dataclasses.replace(stats, resampling=_resampling(corpus, clusters, stats, primary, f_beta, microf_k))
    identical = identical_rows(corpus.systems, ["\n".join(texts[name]).encode() for name in corpus.systems])
    verdict = unit_verdict(metrics, resampling.METRICS, stats.tests, stats.best_set, primary, NAMES, identical)
    return TranslationAudit(
        signature=_signature(sources, opts, corpus, clusters), n_items=corpus.n_segments, systems=corpus.systems,
        sources=sources, options=opts, metrics=metrics, types=types,
        system_types={s: _system_types(types, s) for s in corpus.systems}, tests=stats.tests,
        best_set=stats.best_set, resampling=stats.resampling, statistics=stats, rankings=disagreement,
        human=human_result, recommendation=recommendation, verdict=verdict, warnings=_warnings(corpus, human_scores))


def _resampling(corpus: Corpus, clusters: Any, stats: Any, metric: str, beta: float, k: float) -> dict[str, Any]:
    """``statistics.resampling`` with clusters of segments; the design effect of the recommended metric of each system
    is the ratio of its leave-one-cluster-out to its leave-one-segment-out jackknife variance (for a mean, the
    clustered over naive variance of :func:`auditor.analyses.units.design_effect`, up to the jackknife's (n − 1)/n
    factors)."""
    from auditor.analyses.units import resampling_json

    effects = None
    if stats.interval_details:
        by_segment = jackknife_se(interval_module.jackknife(corpus, beta, k)[metric])
        with np.errstate(invalid="ignore", divide="ignore"):
            effects = stats.interval_details[metric]["jackknife_se"] ** 2 / by_segment ** 2
    return resampling_json(clusters, "segment", effects, corpus.systems, NAMES[metric],
                           "leave-one-cluster-out over leave-one-segment-out jackknife variance of the metric (for a "
                           "mean, the clustered over naive variance up to the factors (n − 1)/n)")


def _resampled(corpus: Corpus, human_scores: Any, options: AuditOptions, beta: float, k: float, progress: Progress,
               prepared: Any) -> tuple[Any, Corpus | None, Any]:
    """(clusters, the corpus of clusters, the bootstrap): with ``--clusters`` every resample, jackknife and swap acts on
    clusters, the rows of summed segments (:func:`~.resampling.grouped`); None, None and the bootstrap over segments
    otherwise."""
    clusters = numbered_clusters(options.clusters, corpus.n_segments, "segment")
    units = None if clusters is None else resampling.grouped(corpus, clusters)
    if options.bootstrap <= 0:
        return clusters, units, None
    human = None if human_scores is None else human_scores.segments if clusters is None else \
        resampling.grouped_human(human_scores.segments, clusters)
    return clusters, units, resampling.bootstrap(units or corpus, options.bootstrap, options.seed, beta, k, human,
                                                 progress, None if units else prepared)


def _human(corpus: Corpus, observed, human_scores, resampled, alpha: float, lower_better: bool, f_beta: float,
           microf_k: float):
    """Agreement with the human scores across systems and, for segment-level scores, across segments (None
    without human scores)."""
    if human_scores is None:
        return None
    result = agreement(observed, human_scores, resampled, alpha, lower_better, corpus.systems)
    return dataclasses.replace(result, segment_level=segment_agreement(corpus, human_scores.segments, f_beta,
                                                                       microf_k))


def _statistics(corpus: Corpus, observed, resampled, clusters, options: AuditOptions, analyses, beta: float,
                k: float, progress: Progress) -> UnitStatistics:
    """The spine's statistics stage (:func:`~auditor.results.unit_statistics_stage`) over segments (or clusters: the
    rows of ``corpus``): intervals by metric (:data:`.intervals.METHODS`: BCa or the jackknife normal interval, the
    jackknife over the corpus's rows), ranks, paired tests and best sets, and what the rounds and p floors are."""
    pairs, family = _pairs(corpus, observed)
    drawn = "clusters of segments (whole clusters drawn)" if clusters is not None else \
        "segments (sacrebleu's draws: default_rng(seed).choice(N, (B, N)))"
    stats = unit_statistics_stage(
        {} if resampled is None else resampled.values, observed, corpus.systems, options, analyses, METRICS,
        lambda rounds: resampling.paired_tests(corpus, observed, resampled, rounds, options.seed, beta, k, pairs,
                                               options.correction, progress), len(pairs), "segment", clusters,
        left_out=None if resampled is None else interval_module.jackknife(corpus, beta, k),
        methods=None if resampled is None else interval_module.METHODS, family=family,
        method=f"paired bootstrap over {drawn}; metric intervals by statistics.interval_method, the jackknife leaving "
               f"one {'cluster' if clusters is not None else 'segment'} out; human-agreement intervals percentile")
    if not stats.tests:  # none ran, or one system: no pair to test
        return stats
    floor = len(pairs) / (options.bootstrap + 1)
    return dataclasses.replace(stats, note=(
        f"approximate randomisation: {stats.rounds_rule}. Paired bootstrap: the {options.bootstrap} resamples of the "
        f"intervals; its smallest adjusted p is m/(B + 1) = {format_small(floor)}"
        + (f", above α = {options.alpha:g}: raise --bootstrap to let it reach significance"
           if floor >= options.alpha else "")))


def _pairs(corpus: Corpus, observed) -> tuple[list[tuple[int, int]], str]:
    """(the pairs tested, the family each metric's correction adjusts together, in words): every pair up to
    :data:`ALL_PAIRS` systems; above it each system against the leader of each metric, as sacrebleu tests each system
    against a baseline."""
    S = len(corpus.systems)
    if S <= ALL_PAIRS:
        pairs = [(a, b) for a in range(S) for b in range(a + 1, S)]
        return pairs, f"all {plural(len(pairs), 'pair')} of the {plural(S, 'system')}"
    leaders = {m: int(np.nanargmax(np.where(np.isnan(v), -np.inf, v))) for m, v in observed.items()}
    pairs = sorted({(min(t, b), max(t, b)) for t in set(leaders.values()) for b in range(S) if b != t})
    named = ", ".join(f"{NAMES[m]}: {corpus.systems[t]}" for m, t in leaders.items())
    return pairs, (f"the {len(pairs)} pairs that include the leader of a metric ({named}): with more than {ALL_PAIRS} "
                   f"systems each system is tested against the leaders only, not all {S * (S - 1) // 2} pairs "
                   f"(approximate randomisation of type-level F costs rounds × types per pair, and the rounds grow "
                   f"with the pairs)")


def _metric_values(corpus: Corpus, observed, stats, alpha: float) -> dict[str, dict[str, Score]]:
    """system -> metric id -> its :class:`~auditor.results.Score`: value, BCa or jackknife interval, why it is
    undefined and the convention each type-level F and a BLEU without any match use."""
    def ledger(metric: str, s: int, value: float | None) -> tuple[str | None, str | None]:
        name = corpus.systems[s]
        if value is None:
            return "no token in this system's output or the references: V is empty, 0/0", None
        if metric in ("macrof", "microf"):
            match, predicted, reference = corpus.counts[name].totals(corpus.reference)
            never = int(((predicted == 0) & (reference > 0)).sum())
            extra = int(((predicted > 0) & (reference == 0)).sum())
            return None, (f"P_c = 1 for the {never} reference types never produced and R_c = 1 for the {extra} "
                          f"produced types absent from the references (the authors' code's convention); both give "
                          f"F_β;c = 0")
        if metric == "bleu" and corpus.bleu[name][:, 2:6].sum() == 0:
            return None, "no n-gram of the output matches the references: BLEU = 0, as sacrebleu sets it"
        return None, None

    return unit_scores(corpus.systems, {m: observed[m] for m in resampling.METRICS}, stats.interval, 1 - alpha, ledger)


def _system_types(types, system: str) -> dict[str, Any]:
    return {"bands": {b.name: {"macrof": b.systems[system][0], "never_produced": b.systems[system][1],
                               "types": b.types} for b in types.bands},
            "never_produced": sum(b.systems[system][1] for b in types.bands)}


def _warnings(corpus: Corpus, human) -> tuple[str, ...]:
    found = [f"{name}: {count} of {corpus.n_segments} segments are empty" for name, count in corpus.empty.items()
             if count]
    if human is not None and human.skipped:
        found.append(f"{human.source}: the lines of {plural(len(human.skipped), 'system')} not audited are left out: "
                     + ", ".join(human.skipped))
    return tuple(found)


def _signature(sources: Mapping[str, Any], opts: Mapping[str, Any], corpus: Corpus, clusters: Any) -> Signature:
    """The shared fields (:meth:`~auditor.results.Signature.of_units`) and the task's own: the references' hashes,
    tokeniser, case, β, k, then sacrebleu's signatures and the human scores' hash."""
    references = ["gold", *(f"reference {i}" for i in range(2, opts["references"] + 1))]
    refs = "+".join(sources[name]["sha256"][:12] for name in references)
    own = (("tok", opts["tokenize"]), ("case", "lc" if opts["lowercase"] else "mixed"),
           ("beta", f"{opts['f_beta']:g}"), ("k", f"{opts['microf_k']:g}"))
    # sacrebleu's own signatures with "," for its "|", so that each field of ours is named once (its "case" and
    # "tok" stay inside the BLEU and chrF2 fields); audit.json's options.sacrebleu keeps them verbatim
    after = [("BLEU", corpus.signatures["bleu"].replace("|", ",")),
             ("chrF2", corpus.signatures["chrf"].replace("|", ","))]
    if "human" in sources:
        after.append(("human", sources["human"]["sha256"][:12]))
    return Signature.of_units("translation", (("ref", refs),), {n: sources[n]["sha256"] for n in corpus.systems},
                              opts, own, "bca/jackknife", "segment", clusters, after)
