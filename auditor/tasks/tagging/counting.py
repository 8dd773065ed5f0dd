"""Count once: chunks of gold and every system, their matches, the error breakdown, and the
per-sentence sufficient statistics that every span figure (and its bootstrap) is a sum of.

Error classes of a predicted chunk (SemEval-2013 Task 9.1 as Segura-Bedmar et al. 2013 score
it, and as the nervaluate package implements it): **correct** (same boundaries and type),
**wrong type** (same boundaries), **wrong boundary** (overlaps a gold chunk of its type: the
first gold chunk it overlaps decides), **wrong both** (overlaps only with another type),
**spurious** (overlaps no gold chunk). A gold chunk that no predicted chunk chose is **missed**.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse

from auditor.errors import InputError
from auditor.tasks.tagging.align import Aligned
from auditor.tasks.tagging.schemes import Spans, TagCodes, check_allowed, spans

ERRORS = ("correct", "wrong_type", "wrong_boundary", "wrong_both", "missed", "spurious")


@dataclass(frozen=True)
class SystemSpans:
    """One system's chunks, its per-chunk error class (index into :data:`ERRORS`), the missed gold
    chunks, and how many chunks the other rule sees differently (``ill_formed``)."""

    spans: Spans
    error: np.ndarray
    missed: np.ndarray
    matched: np.ndarray
    ill_formed: int


def token_arrays(aligned: Aligned, codes: TagCodes) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Prefix and type codes of gold (N,) and systems (S, N)."""
    return (codes.prefix[aligned.gold], codes.type[aligned.gold],
            codes.prefix[aligned.systems], codes.type[aligned.systems])


def chunks(prefix: np.ndarray, types: np.ndarray, first: np.ndarray, scheme: str, rule: str,
           source: str, tags: tuple[str, ...], tag_codes: np.ndarray, lines: np.ndarray) -> tuple[Spans, int]:
    """Chunks by ``rule`` and the number of chunks the two rules see differently: conlleval's
    chunks that are not strict chunks (repaired by conlleval, dropped by strict)."""
    if rule == "strict":
        check_allowed(prefix, scheme, tags, tag_codes, source, lines)
    chosen = spans(prefix, types, first, scheme, rule)
    lenient = chosen if rule == "conlleval" else spans(prefix, types, first, scheme, "conlleval")
    try:
        check_allowed(prefix, scheme, tags, tag_codes, source, lines)
    except InputError:  # tags outside the scheme: strict mode is undefined; every chunk is as conlleval sees it
        return chosen, 0
    strict = chosen if rule == "strict" else spans(prefix, types, first, scheme, "strict")
    n = max(int(prefix.size), 1)
    lenient_keys = (lenient.start * n + lenient.end) * 1024 + lenient.type
    strict_keys = (strict.start * n + strict.end) * 1024 + strict.type
    return chosen, int(np.isin(lenient_keys, strict_keys, invert=True).sum())


def classify(gold: Spans, predicted: Spans) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Error class of every predicted chunk, the missed gold chunks (mask), and the gold chunk each
    predicted chunk matches exactly (-1 if none). Chunks of one sequence never overlap, so the
    first gold chunk a predicted one overlaps is the first whose end is not before its start."""
    g = np.searchsorted(gold.end, predicted.start, side="left")
    inside = g < gold.size
    gi = np.minimum(g, max(gold.size - 1, 0))
    overlaps = inside & (gold.start[gi] <= predicted.end) if gold.size else np.zeros(predicted.size, bool)
    exact = overlaps & (gold.start[gi] == predicted.start) & (gold.end[gi] == predicted.end) if gold.size else overlaps
    same = overlaps & (gold.type[gi] == predicted.type) if gold.size else overlaps
    error = np.full(predicted.size, ERRORS.index("spurious"), dtype=np.int8)
    error[overlaps & ~exact & ~same] = ERRORS.index("wrong_both")
    error[overlaps & ~exact & same] = ERRORS.index("wrong_boundary")
    error[exact & ~same] = ERRORS.index("wrong_type")
    error[exact & same] = ERRORS.index("correct")
    chosen = np.zeros(gold.size, dtype=bool)
    chosen[gi[overlaps]] = True
    matched = np.where(exact & same, gi, -1)
    return error, ~chosen, matched


@dataclass(frozen=True)
class SpanCounts:
    """Everything the span figures need, per sentence: ``stats`` (sentences, D), sparse, with
    columns ``gold`` per type, then per system ``predicted`` per type, ``matched`` per type and
    the six error counts. ``columns(system, part)`` gives a part's column slice."""

    types: tuple[str, ...]
    systems: tuple[str, ...]
    stats: scipy.sparse.csr_matrix
    gold: Spans
    per_system: tuple[SystemSpans, ...]
    gold_ill_formed: int

    @property
    def T(self) -> int:
        return len(self.types)

    def columns(self, system: int | None, part: str) -> slice:
        T = self.T
        if system is None:
            return slice(0, T)
        base = T + system * (2 * T + len(ERRORS))
        offset = {"predicted": 0, "matched": T, "errors": 2 * T}[part]
        width = len(ERRORS) if part == "errors" else T
        return slice(base + offset, base + offset + width)

    def totals(self) -> np.ndarray:
        """Column sums over every sentence (the whole test set), shape (D,)."""
        return np.asarray(self.stats.sum(axis=0)).ravel()

    @cached_property
    def active(self) -> np.ndarray:
        """(S, T): the types of the gold chunks or the system's chunks on the whole test set, which
        macro averages run over (seqeval's label set: types of extracted entities, gold ∪ predicted);
        resamples keep this set."""
        totals = self.totals()
        gold = totals[:self.T] > 0
        return np.stack([gold | (totals[self.columns(s, "predicted")] > 0) for s in range(len(self.systems))]) \
            if self.systems else np.zeros((0, self.T), bool)


def count_spans(aligned: Aligned, codes: TagCodes, scheme: str, rule: str, sources: dict[str, str]) -> SpanCounts:
    """Chunks of gold and systems, their classes, and the per-sentence statistics matrix."""
    gold_prefix, gold_type, system_prefix, system_type = token_arrays(aligned, codes)
    first, lines, T = aligned.first, aligned.lines, len(codes.types)
    gold, gold_ill = chunks(gold_prefix, gold_type, first, scheme, rule, sources["gold"], codes.tags,
                            aligned.gold, lines)
    sentence = aligned.sentence
    n_sentences = aligned.n_sentences
    width = len(ERRORS)
    rows, cols, values = [sentence[gold.start]], [gold.type], [np.ones(gold.size, np.int64)]
    per_system = []
    for s, name in enumerate(aligned.names):
        predicted, ill = chunks(system_prefix[s], system_type[s], first, scheme, rule, sources[name], codes.tags,
                                aligned.systems[s], lines)
        error, missed, matched = classify(gold, predicted)
        per_system.append(SystemSpans(predicted, error, missed, matched, ill))
        base = T + s * (2 * T + width)
        where = sentence[predicted.start]
        hit = matched >= 0
        rows += [where, where[hit], where, sentence[gold.start[missed]]]
        cols += [base + predicted.type, base + T + predicted.type[hit], base + 2 * T + error,
                 np.full(int(missed.sum()), base + 2 * T + ERRORS.index("missed"))]
        values += [np.ones(predicted.size, np.int64), np.ones(int(hit.sum()), np.int64),
                   np.ones(predicted.size, np.int64), np.ones(int(missed.sum()), np.int64)]
    D = T + len(aligned.names) * (2 * T + width)
    stats = scipy.sparse.coo_matrix((np.concatenate(values).astype(float),
                                     (np.concatenate(rows), np.concatenate(cols))),
                                    shape=(n_sentences, D)).tocsr()
    stats.sum_duplicates()
    return SpanCounts(codes.types, aligned.names, stats, gold, tuple(per_system), gold_ill)


def token_counts(aligned: Aligned, codes: TagCodes) -> tuple[scipy.sparse.csr_matrix, scipy.sparse.csr_matrix,
                                                              tuple[str, ...]]:
    """Per-sentence confusion counts, flattened to (sentences, S·k·k), over full tags and over types
    (prefix removed; ``O`` its own class); and the type labels."""
    k = len(aligned.tags)
    type_labels = ("O", *codes.types) if "O" not in codes.types else (*codes.types,)
    type_of_tag = np.where(codes.type < 0, 0, codes.type + 1) if "O" not in codes.types else codes.type
    return (_per_sentence(aligned.sentence, aligned.gold, aligned.systems, k, aligned.n_sentences),
            _per_sentence(aligned.sentence, type_of_tag[aligned.gold], type_of_tag[aligned.systems],
                          len(type_labels), aligned.n_sentences), type_labels)


def _per_sentence(sentence: np.ndarray, gold: np.ndarray, systems: np.ndarray, k: int, n: int
                  ) -> scipy.sparse.csr_matrix:
    """``M[sentence, s·k² + gold·k + predicted]`` counts, one sparse matrix."""
    S = systems.shape[0]
    cells = (np.arange(S)[:, None] * k * k + gold[None, :] * k + systems).ravel()
    rows = np.broadcast_to(sentence, (S, sentence.size)).ravel()
    matrix = scipy.sparse.coo_matrix((np.ones(cells.size), (rows, cells)), shape=(n, S * k * k)).tocsr()
    matrix.sum_duplicates()
    return matrix
