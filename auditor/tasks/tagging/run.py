"""The tagging audit: read -> align -> chunks and counts -> figures -> sentence bootstrap -> rankings."""
from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.analyses.profile import identical_rows
from auditor.errors import InputError, UsageError
from auditor.io.clusters import numbered_clusters
from auditor.io.parallel import in_order
from auditor.io.source import Source
from auditor.metrics.catalogue import BASE_METRIC_IDS, compute, describe
from auditor.metrics.registry import REGISTRY
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
from auditor.tasks.tagging.align import Aligned, align, check_alignment
from auditor.tasks.tagging.counting import Layout, count_spans, statistics_matrix, totals, type_map
from auditor.tasks.tagging.measures import active_types, span_values
from auditor.tasks.tagging.names import SHORT, TYPE_PREFIX
from auditor.tasks.tagging.reading import TagFile, read_conlleval, read_tagged
from auditor.tasks.tagging.recommend import recommend
from auditor.tasks.tagging.result import TaggingAudit, TokenView
from auditor.tasks.tagging.schemes import check_choice, default_rule, detect_scheme, parse_tags

#: Metrics tested pairwise (paired bootstrap over sentences) and ranked by default.
TESTED = ("span_micro_f1", "span_macro_f1", "span_partial_f1", "accuracy", "macro_f1")
RANKED = ("span_micro_f1", "span_macro_f1", "span_weighted_f1", "span_exact_f1", "span_overlap_f1",
          "span_partial_f1", "accuracy", "macro_f1", "mcc", "type_macro_f1", "type_mcc")


def read_inputs(gold: str | None, systems: Mapping[str, str], tag_column: int | None,
                conlleval: Mapping[str, str]) -> tuple[TagFile, dict[str, TagFile]]:
    """Gold and system files, or conlleval files (each holds gold and one system's tags), read two at a
    time (:func:`auditor.io.parallel.in_order`)."""
    if conlleval:
        if gold is not None or systems:
            raise UsageError("--conlleval files hold gold and predictions; give them without GOLD and SYSTEMS")
        read = dict(zip(conlleval, in_order([partial(read_conlleval, path) for path in conlleval.values()])))
        first_name = next(iter(read))
        gold_file = read[first_name][0]
        for other, _ in read.values():
            _same_gold(gold_file, other)
        return gold_file, {name: pair[1] for name, pair in read.items()}
    if gold is None or not systems:
        raise UsageError("missing " + ("GOLD and SYSTEMS" if gold is None else "SYSTEMS")
                         + ": give a gold file and at least one system file, or --conlleval FILE")
    files = in_order([partial(read_tagged, gold, tag_column, role="gold"),
                      *(partial(read_tagged, path, tag_column) for path in systems.values())])
    gold_file = next(files)
    return gold_file, {name: _checked(gold_file, file) for name, file in zip(systems, files)}


def _checked(gold: TagFile, system: TagFile) -> TagFile:
    """``system`` aligned with gold (:func:`~auditor.tasks.tagging.align.check_alignment`), without its tokens:
    each file's tokens are compared as soon as it is read and not kept (memory for the next file)."""
    check_alignment(gold, system)
    return replace(system, tokens=None)


def _same_gold(gold: TagFile, other: TagFile) -> None:
    """Every conlleval file must carry the same gold column."""
    check_alignment(gold, other)
    mine = np.array(gold.vocab, dtype=object)[gold.codes]
    theirs = np.array(other.vocab, dtype=object)[other.codes]
    differ = np.flatnonzero(mine != theirs)
    if differ.size:
        t = int(differ[0])
        raise InputError(f"{other.source} line {other.lines[t]}: gold tag {theirs[t]!r}, but {gold.source} line "
                         f"{gold.lines[t]} has {mine[t]!r}; every --conlleval file must hold the same gold")


def _located_tags(aligned: Aligned, sources: Mapping[str, str]) -> list[str]:
    """Where each tag of ``aligned.tags`` first occurs (file and line), for messages."""
    where = []
    for code in range(len(aligned.tags)):
        hits = np.flatnonzero(aligned.gold == code)
        if hits.size:
            where.append(f"{sources['gold']} line {aligned.lines[hits[0]]}")
            continue
        for s, name in enumerate(aligned.names):
            hits = np.flatnonzero(aligned.systems[s] == code)
            if hits.size:
                where.append(f"{sources[name]} line {aligned.lines[hits[0]]}")
                break
    return where


def audit(gold: str | None, systems: Mapping[str, str], *, options: AuditOptions | None = None,
          progress: Progress = SILENT, analyses: Sequence[str] | None = None, scheme: str | None = None,
          span_rule: str | None = None, tag_column: int | None = None,
          conlleval: Sequence[str] | Mapping[str, str] = ()) -> TaggingAudit:
    """The tagging audit of ``systems`` ({name: path}) against ``gold`` (a path)."""
    options = options or AuditOptions()
    check_options(options, "tagging")
    check_choice(scheme, span_rule)
    named = _conlleval_names(conlleval)
    gold_file, files = read_inputs(gold, systems, tag_column, named)
    sources = {"gold": gold_file.source, **{name: f.source for name, f in files.items()}}
    aligned = align(gold_file, files)
    try:
        codes = parse_tags(aligned.tags)
    except InputError:  # again, naming where each tag first occurs
        codes = parse_tags(aligned.tags, _located_tags(aligned, sources))
    detected = scheme is None
    scheme, reason = _scheme(aligned, codes) if detected else (scheme, "given (--scheme)")
    if scheme is None and span_rule is not None:
        raise UsageError("--span-rule needs tags with prefixes (B-, I-, ...); these tags have none")
    rule = span_rule or (default_rule(scheme) if scheme else None)
    spans = count_spans(aligned, codes, scheme, rule, sources) if scheme else None
    type_of_tag, type_labels = type_map(codes)
    S = len(aligned.names)
    layout = Layout(S, len(aligned.tags), len(type_labels), len(codes.types) if spans else 0, type_of_tag)
    parts = layout.parts(totals(aligned, spans, layout))
    active = active_types(parts)
    confusion, type_confusion = parts["confusion"].astype(np.int64), parts["type_confusion"].astype(np.int64)
    tokens = TokenView(aligned.tags, confusion, describe(confusion, aligned.tags, REGISTRY.scalar()))
    types = TokenView(type_labels, type_confusion, describe(type_confusion, type_labels, REGISTRY.scalar()))
    observed = _evaluate(parts, active, spans is not None)
    clusters = numbered_clusters(options.clusters, aligned.n_sentences, "sentence")
    stats = _statistics(aligned, spans, layout, active, observed, options, progress, analyses, clusters)
    inputs = {"gold": gold_file, **files}
    metrics = _scores(observed, stats, aligned.names, tokens, types, active, parts, spans)
    ranking = None if analyses is not None and "rankings" not in analyses else \
        unit_rankings(metrics, [m for m in RANKED if m in observed], stats.tests, options.alpha)
    verdict = unit_verdict(metrics, [m for m in TESTED if m in observed], stats.tests, stats.best_set, None,
                           {**SHORT, "accuracy": "Acc", "macro_f1": "token macF1"},
                           identical_rows(aligned.names, aligned.systems))
    shared = unit_options(options, resampling_unit="sentence", scheme=scheme, span_rule=rule)
    own = (("tags", str(layout.k)), ("scheme", scheme or "none"), ("rule", rule or "none"))
    audit = TaggingAudit(
        signature=Signature.of_units("tagging", (("gold", gold_file.digest[:12]),),
                                     {name: f.digest for name, f in files.items()}, shared, own, "percentile",
                                     "sentence", clusters),
        n_items=aligned.n_tokens, systems=aligned.names, options=shared,
        sources={name: Source(file.source, file.digest, aligned.n_tokens) for name, file in inputs.items()},
        metrics=metrics, tests=stats.tests, best_set=stats.best_set, rankings=ranking, verdict=verdict,
        resampling=stats.resampling,
        aligned=aligned, codes=codes, scheme=scheme, scheme_detected=detected, scheme_reason=reason, rule=rule,
        spans=spans, tokens=tokens, types=types, statistics=stats, parts=parts)
    return replace(audit, recommendation=recommend(audit))  # read off the finished record


def _scores(observed: Mapping[str, np.ndarray], stats: Any, systems: Sequence[str], tokens: TokenView,
            types: TokenView, active: np.ndarray, parts: Mapping[str, np.ndarray], spans: Any
            ) -> dict[str, dict[str, Score]]:
    """system -> metric id -> its :class:`~auditor.results.Score`: value, interval over sentences, why it is
    undefined (a span figure's 0/0; a token metric's own reason) and the convention a macro average uses."""
    def ledger(metric: str, s: int, value: float | None) -> tuple[str | None, str | None]:
        if not metric.startswith("span_"):
            entry = types.values[s][metric.removeprefix(TYPE_PREFIX)] if metric.startswith(TYPE_PREFIX) else \
                tokens.values[s][metric]
            return entry.undefined, entry.convention
        if value is None:
            return "0/0: no chunk predicted or in gold for this figure", None
        return None, None if not metric.startswith("span_macro_") else _type_zero_division(
            active[s], parts["predicted"][s], parts["gold"], spans.types, metric.removeprefix("span_macro_"))

    return unit_scores(systems, observed, stats.interval, 1 - stats.alpha, ledger)


def _type_zero_division(active: np.ndarray, predicted: np.ndarray, gold: np.ndarray, types: Sequence[str],
                        part: str) -> str | None:
    """The convention a span macro average of ``part`` (precision, recall, f1) uses for one system: which types'
    ``part`` is 0/0 (precision: a type the system never predicts; recall: one gold never has; F1 of a type in gold
    or predictions is never 0/0), counted as 0 as seqeval's zero_division=0; None when none."""
    zero = {"precision": active & (predicted == 0), "recall": active & (gold == 0)}.get(part)
    if zero is None or not zero.any():
        return None
    why = "never predicted" if part == "precision" else "no gold chunk"
    names = ", ".join(types[t] for t in np.flatnonzero(zero))
    return f"{part} of {names} is 0/0 ({why}), counted as 0 (seqeval's zero_division=0)"


def _statistics(aligned: Aligned, spans: Any, layout: Layout, active: np.ndarray, observed: dict[str, np.ndarray],
                options: AuditOptions, progress: Progress, analyses: Sequence[str] | None, clusters: Any = None) -> Any:
    """The spine's resampling over sentences (:mod:`auditor.analyses.units`) and statistics stage
    (:func:`~auditor.results.unit_statistics_stage`): intervals, rank probabilities and the pair tests. Imported
    here: an audit without intervals loads no scipy. With ``clusters`` (of sentences) whole clusters are drawn and
    swapped."""
    from auditor.analyses.units import UnitResampler, block_rows, randomisation_tests

    values: dict[str, np.ndarray] = {}
    matrix = statistics_matrix(aligned, spans, layout) if options.bootstrap else None
    if matrix is not None:
        n = matrix.shape[0]
        # float32 when no resample's sum can reach 2^24 (n sentences × the largest count of one), so counts stay exact
        dtype = np.float32 if n * (matrix.max() if matrix.nnz else 0) < 2**24 else np.float64
        shared = matrix[:, :layout.shared].toarray().astype(dtype)
        rest = matrix[:, layout.shared:].T.tocsr().astype(dtype)
        with progress.task("bootstrap over sentences", total=options.bootstrap) as advance:
            values = UnitResampler(n, options.bootstrap, [options.seed, 22], clusters, min(50, block_rows(n))).values(
                lambda w: np.concatenate([w @ shared, np.asarray(rest @ w.T).T], axis=1).astype(float),
                lambda sums: _evaluate(layout.parts(sums), active, spans is not None), dtype, advance)
    tested, pair = [m for m in TESTED if m in observed], replace(layout, S=2)
    S = len(aligned.names)
    return unit_statistics_stage(
        values, observed, aligned.names, options, analyses, tested, lambda rounds: randomisation_tests(
            matrix, layout.shared, layout.per_system,
            lambda a, b, sums: _evaluate(pair.parts(sums), active[[a, b]], spans is not None),
            observed, aligned.names, tested, rounds, options.seed, options.correction, clusters, progress=progress),
        S * (S - 1) // 2, "sentence", clusters, resampling=None if clusters is None else _resampling(aligned, clusters))


def _resampling(aligned: Aligned, clusters: Any) -> dict[str, Any]:
    """``statistics.resampling`` with clusters of sentences: the design effect of each system's token accuracy, the
    ratio of correct tokens to tokens summed per sentence (:func:`auditor.analyses.units.design_effect`)."""
    from auditor.analyses.units import design_effect, resampling_json

    n = aligned.n_sentences
    correct = np.stack([np.bincount(aligned.sentence, weights=(row == aligned.gold), minlength=n)
                        for row in aligned.systems])
    effects = design_effect(correct, np.bincount(aligned.sentence, minlength=n), clusters)
    return resampling_json(clusters, "sentence", effects, aligned.names, "token accuracy")


def _scheme(aligned: Aligned, codes: Any) -> tuple[str | None, str]:
    """The scheme detected from the gold tags, or, when gold has no chunk at all, from the first
    system's tags that have one (and said so)."""
    for name, row in (("gold", aligned.gold), *zip(aligned.names, aligned.systems)):
        if codes.prefix[row].any():
            scheme, reason = detect_scheme(codes.prefix[row], codes.type[row], aligned.first)
            return scheme, reason if name == "gold" else f"gold has no chunk; from {name}'s tags: {reason}"
    return None, "no tag has a prefix: no spans (token metrics only)"


def _conlleval_names(conlleval: Sequence[str] | Mapping[str, str]) -> dict[str, str]:
    if isinstance(conlleval, Mapping):
        return dict(conlleval)
    from auditor.options import name_paths

    return name_paths(conlleval)


def _evaluate(parts: dict[str, np.ndarray], active: np.ndarray, with_spans: bool) -> dict[str, np.ndarray]:
    """Every metric on the sums ``parts`` (on the whole test set, or a block of resamples): id -> (…, S), NaN where
    undefined."""
    out: dict[str, np.ndarray] = span_values(parts, active) if with_spans else {}
    metrics = [REGISTRY.metrics[m] for m in BASE_METRIC_IDS]
    for key, prefix in (("confusion", ""), ("type_confusion", TYPE_PREFIX)):
        for metric, values in compute(parts[key], metrics).items():
            out[prefix + metric] = values
    return out
