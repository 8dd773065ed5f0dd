"""Count once: chunks of gold and every system, their matches, the error breakdown, and the
per-sentence sufficient statistics that every figure (and its bootstrap) is a sum of.

Matching as nervaluate 1.2.1 does it for SemEval-2013 Task 9.1 (Segura-Bedmar et al. 2013): the
predicted chunks are read left to right and each takes at most one gold chunk that no earlier one
took, so every gold chunk is counted once (POSSIBLE = gold chunks, as in MUC) and every predicted
chunk once (ACTUAL = predicted chunks). Under the first rule a chunk takes the first untaken gold
chunk it overlaps; its class is **correct** (same boundaries and type), **wrong type** (same
boundaries), **wrong boundary** (overlap, same type), **wrong both** (overlap, other type) or
**spurious** (took none); an untaken gold chunk is **missed**. nervaluate's *strict*, *exact* and
*partial* counts follow from these classes. Its *ent_type* view (our *overlap*) takes, among the
untaken gold chunks a chunk overlaps, the one of its type with the closest boundaries (the sum of
the two offsets; the first on a tie), else the first of another type (incorrect): its incorrect
and missed counts are kept beside the classes. Any shared token counts as overlap (nervaluate's
default asks 1% of the gold chunk's tokens, the same for chunks of up to 100 tokens).

The per-sentence statistics hold the gold counts once and, per system, only what it got wrong
(gold chunks it did not match, chunks it predicted without a match, its error classes; token
confusion cells off the diagonal), so that they stay as sparse as the systems' errors; every
sum is turned back into matched/predicted counts and full confusion matrices by
:meth:`Statistics.parts` (matched = gold − unmatched gold, predicted = matched + unmatched
predictions, C_ii = gold_i − Σ_{j≠i} C_ij).
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from auditor.errors import InputError
from auditor.options import THREADS
from auditor.tasks.tagging.align import Aligned
from auditor.tasks.tagging.schemes import PREFIXES, Spans, TagCodes, _previous, check_allowed, spans

if TYPE_CHECKING:  # scipy.sparse is imported when the bootstrap needs the matrix
    import scipy.sparse

ERRORS = ("correct", "wrong_type", "wrong_boundary", "wrong_both", "missed", "spurious")
#: The overlap (ent_type) view's own counts: predicted chunks that took a gold chunk of another type, gold
#: chunks no chunk took.
TYPE_VIEW = ("type_incorrect", "type_missed")
#: Error classes stored per sentence (``correct`` follows from the matches), then the overlap view's counts.
STORED_ERRORS = ERRORS[1:] + TYPE_VIEW


@dataclass(frozen=True)
class SystemSpans:
    """One system's chunks, its per-chunk error class (index into :data:`ERRORS`), the missed gold
    chunks, the gold chunk each chunk matches exactly (-1: none), its chunks the two rules see
    differently (``ill``: conlleval's chunks that are not strict chunks), and the overlap view's
    incorrect chunks and missed gold chunks (masks)."""

    spans: Spans
    error: np.ndarray
    missed: np.ndarray
    matched: np.ndarray
    ill: Spans
    type_incorrect: np.ndarray
    type_missed: np.ndarray

    @property
    def ill_formed(self) -> int:
        return self.ill.size


_NONE = Spans(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64))


def _keys(found: Spans, n: int) -> np.ndarray:
    return (found.start * n + found.end) * 4096 + found.type


def both_rules(prefix: np.ndarray, types: np.ndarray, first: np.ndarray, scheme: str, rule: str, source: str,
               tags: tuple[str, ...], tag_codes: np.ndarray, lines: np.ndarray) -> tuple[Spans, Spans | None, Spans]:
    """Chunks by ``rule``, by the other rule (None where the tags are outside the scheme, so strict
    mode is undefined), and the conlleval chunks that are not strict chunks (repaired by conlleval,
    dropped by strict)."""
    try:
        check_allowed(prefix, scheme, tags, tag_codes, source, lines)
    except InputError:
        if rule == "strict":
            raise
        return spans(prefix, types, first, scheme, "conlleval"), None, _NONE
    previous = _previous(prefix, types, first)
    lenient = spans(prefix, types, first, scheme, "conlleval", previous)
    if scheme == "IOB2":  # seqeval's strict IOB2 chunks are exactly conlleval's that open with B- (B-X I-X*)
        opens_b = prefix[lenient.start] == PREFIXES.index("B")
        strict = Spans(lenient.start[opens_b], lenient.end[opens_b], lenient.type[opens_b])
        ill = Spans(lenient.start[~opens_b], lenient.end[~opens_b], lenient.type[~opens_b])
        return (lenient, strict, ill) if rule == "conlleval" else (strict, lenient, ill)
    strict = spans(prefix, types, first, scheme, "strict", previous)
    n = max(int(prefix.size), 1)
    odd = ~np.isin(_keys(lenient, n), _keys(strict, n), assume_unique=True)
    ill = Spans(lenient.start[odd], lenient.end[odd], lenient.type[odd])
    return (lenient, strict, ill) if rule == "conlleval" else (strict, lenient, ill)


@dataclass(frozen=True)
class Matching:
    """What one system's chunks took (module docstring): ``error`` per predicted chunk (index into
    :data:`ERRORS`), ``missed`` per gold chunk, ``matched`` the gold chunk each predicted chunk matches
    exactly (-1: none), and the overlap view's ``type_incorrect`` (predicted) and ``type_missed`` (gold)."""

    error: np.ndarray
    missed: np.ndarray
    matched: np.ndarray
    type_incorrect: np.ndarray
    type_missed: np.ndarray


def _resolve(lo: np.ndarray, hi: np.ndarray, free: np.ndarray, taken: np.ndarray) -> np.ndarray:
    """The gold chunk each predicted chunk takes when the chunks are read left to right and each takes
    ``free`` (its choice while the first gold chunk it overlaps, ``lo``, is still untaken) or ``taken``
    (its choice once an earlier chunk took ``lo``); -1: none.

    Only the chunk just before can have taken ``lo`` (chunks of one sequence do not overlap, so every
    later gold chunk a chunk overlaps lies beyond its predecessors), and it did when its own choice
    was ``lo`` or when both start in ``lo`` (then ``lo`` is taken either way). Whether ``lo`` is taken
    is therefore a function of the same question one chunk earlier: constant, the same, or the
    opposite; the chain is solved at once from the last constant link and the parity of the
    opposites after it."""
    n = lo.size
    if n == 0:
        return np.zeros(0, np.int64)
    link = np.zeros(n, bool)
    link[1:] = (free[1:] >= 0) & (free[:-1] >= 0) & (hi[:-1] == lo[1:])
    if_free, if_taken = np.zeros(n, bool), np.zeros(n, bool)
    same_start = np.zeros(n, bool)
    same_start[1:] = lo[:-1] == lo[1:]
    if_free[1:] = link[1:] & (free[:-1] == lo[1:])
    if_taken[1:] = link[1:] & ((taken[:-1] == lo[1:]) | same_start[1:])
    constant = if_free == if_taken
    constant[0] = True
    opposite = ~constant & if_free
    last = np.maximum.accumulate(np.where(constant, np.arange(n), 0))
    flips = np.cumsum(opposite)
    lo_taken = if_free[last] ^ ((flips - flips[last]) % 2 == 1)
    return np.where(lo_taken, taken, free)


def _closest_of_type(lo: np.ndarray, hi: np.ndarray, gold: Spans, predicted: Spans) -> tuple[np.ndarray, np.ndarray]:
    """The overlap view's choice of every predicted chunk while ``lo`` is untaken and once it is taken:
    the gold chunk of its type with the smallest |start offset| + |end offset| (the first on a tie), else
    the first gold chunk of another type; -1: none. Over the (predicted, gold) overlapping pairs, which are
    fewer than the chunks of both."""
    count = np.where(lo <= hi, hi - lo + 1, 0)
    chunk = np.repeat(np.arange(predicted.size), count)
    offset = np.arange(chunk.size) - np.repeat(np.cumsum(count) - count, count)
    g = lo[chunk] + offset
    same = gold.type[g] == predicted.type[chunk]
    distance = np.where(same,
                        np.abs(gold.start[g] - predicted.start[chunk]) + np.abs(gold.end[g] - predicted.end[chunk]), 0)
    order = np.lexsort((g, distance, ~same, chunk))
    choices = []
    for keep in (np.ones(chunk.size, bool), g != lo[chunk]):
        ranked = order[keep[order]]
        first = ranked[np.r_[True, chunk[ranked][1:] != chunk[ranked][:-1]]] if ranked.size else ranked
        choice = np.full(predicted.size, -1, np.int64)
        choice[chunk[first]] = g[first]
        choices.append(choice)
    return choices[0], choices[1]


def classify(gold: Spans, predicted: Spans) -> Matching:
    """Match one system's chunks to the gold chunks as nervaluate 1.2.1 does (module docstring). Chunks of
    one sequence never overlap, so a predicted chunk overlaps the gold chunks ``lo..hi``: those whose end is
    not before its start and whose start is not after its end."""
    n_pred = predicted.size
    lo = np.searchsorted(gold.end, predicted.start, side="left")
    hi = np.searchsorted(gold.start, predicted.end, side="right") - 1
    overlaps = lo <= hi
    first = np.where(overlaps, lo, -1)
    took = _resolve(lo, hi, first, np.where(overlaps & (lo + 1 <= hi), lo + 1, -1))
    g = np.maximum(took, 0)
    hit = took >= 0
    bounds = hit & (gold.start[g] == predicted.start) & (gold.end[g] == predicted.end) if gold.size else hit
    same = hit & (gold.type[g] == predicted.type) if gold.size else hit
    error = np.full(n_pred, ERRORS.index("spurious"), dtype=np.int64)
    error[hit & ~bounds & ~same] = ERRORS.index("wrong_both")
    error[hit & ~bounds & same] = ERRORS.index("wrong_boundary")
    error[bounds & ~same] = ERRORS.index("wrong_type")
    error[bounds & same] = ERRORS.index("correct")
    missed = np.ones(gold.size, dtype=bool)
    missed[took[hit]] = False
    if gold.size:
        type_took = _resolve(lo, hi, *_closest_of_type(lo, hi, gold, predicted))
    else:
        type_took = np.full(n_pred, -1, np.int64)
    type_hit = type_took >= 0
    type_missed = np.ones(gold.size, dtype=bool)
    type_missed[type_took[type_hit]] = False
    type_incorrect = type_hit & (gold.type[np.maximum(type_took, 0)] != predicted.type) if gold.size else type_hit
    return Matching(error, missed, np.where(bounds & same, took, -1), type_incorrect, type_missed)


@dataclass(frozen=True)
class SpanCounts:
    """Chunks of gold and every system and their classes; ``other_rule_f1`` = each system's span
    micro F1 under the rule not chosen (None where it is undefined)."""

    types: tuple[str, ...]
    systems: tuple[str, ...]
    gold: Spans
    per_system: tuple[SystemSpans, ...]
    gold_ill: Spans
    other_rule_f1: tuple[float | None, ...]

    @property
    def gold_ill_formed(self) -> int:
        return self.gold_ill.size

    @property
    def T(self) -> int:
        return len(self.types)


def count_spans(aligned: Aligned, codes: TagCodes, scheme: str, rule: str, sources: dict[str, str]) -> SpanCounts:
    """Chunks of gold and systems by ``rule`` (and by the other rule, for the comparison); the systems
    two at a time (:data:`~auditor.options.THREADS` threads: numpy releases the GIL over whole-file arrays), an
    error raised at its own system's turn, as counting one system after another would."""
    tag_prefix, tag_type = codes.prefix, codes.type
    first, lines = aligned.first, aligned.lines
    gold, gold_other, gold_ill = both_rules(tag_prefix[aligned.gold], tag_type[aligned.gold], first, scheme, rule,
                                            sources["gold"], codes.tags, aligned.gold, lines)
    n = max(aligned.n_tokens, 1)

    def count(s: int) -> tuple[SystemSpans, float | None]:
        row = aligned.systems[s]
        predicted, other, ill = both_rules(tag_prefix[row], tag_type[row], first, scheme, rule,
                                           sources[aligned.names[s]], codes.tags, row, lines)
        m = classify(gold, predicted)
        mine = SystemSpans(predicted, m.error, m.missed, m.matched, ill, m.type_incorrect, m.type_missed)
        if other is None or gold_other is None:
            return mine, None
        hits = np.isin(_keys(other, n), _keys(gold_other, n), assume_unique=True).sum()
        total = other.size + gold_other.size
        return mine, (2 * float(hits) / total if total else None)

    with ThreadPoolExecutor(THREADS) as pool:
        counted = list(pool.map(count, range(len(aligned.names))))
    return SpanCounts(codes.types, aligned.names, gold, tuple(c[0] for c in counted), gold_ill,
                      tuple(c[1] for c in counted))


@dataclass(frozen=True)
class Layout:
    """Column layout of the per-sentence statistics: shared gold blocks (tags k, chunks per type T),
    then per system its off-diagonal tag cells (k²) and span errors (2T + 7). Type confusion
    matrices follow from the tag ones (``type_of_tag`` maps each tag to its type class)."""

    S: int
    k: int
    kt: int
    T: int
    type_of_tag: np.ndarray

    @property
    def shared(self) -> int:
        return self.k + self.T

    @property
    def per_system(self) -> int:
        return self.k * self.k + 2 * self.T + len(STORED_ERRORS)

    @property
    def width(self) -> int:
        return self.shared + self.S * self.per_system

    def parts(self, sums: np.ndarray) -> dict[str, np.ndarray]:
        """Summed columns (…, D) -> tag confusion (…, S, k, k), type confusion (…, S, kt, kt), gold
        chunks (…, T), matched and predicted chunks (…, S, T), the six error counts (…, S, 6)."""
        batch = sums.shape[:-1]
        k, kt, T, S = self.k, self.kt, self.T, self.S
        gold_tags, gold = sums[..., :k], sums[..., k:self.shared]
        block = sums[..., self.shared:].reshape(*batch, S, self.per_system)
        confusion = _confusion(block[..., :k * k], gold_tags, k)
        one_hot = np.eye(kt)[self.type_of_tag]  # (k, kt)
        out = {"confusion": confusion, "type_confusion": one_hot.T @ confusion @ one_hot, "gold": gold}
        span = block[..., k * k:]
        matched = gold[..., None, :] - span[..., :T]
        out["matched"], out["predicted"] = matched, matched + span[..., T:2 * T]
        stored = span[..., 2 * T:]
        out["errors"] = np.concatenate([matched.sum(-1, keepdims=True), stored[..., :len(ERRORS) - 1]], axis=-1)
        out["type_view"] = stored[..., len(ERRORS) - 1:]
        return out


def _confusion(off: np.ndarray, gold: np.ndarray, k: int) -> np.ndarray:
    """Off-diagonal cells (…, S, k²) and gold counts (…, k) -> full matrices (…, S, k, k)."""
    matrix = off.reshape(*off.shape[:-1], k, k).copy()
    index = np.arange(k)
    matrix[..., index, index] = gold[..., None, :] - matrix.sum(-1)
    return matrix


def statistics_matrix(aligned: Aligned, counts: SpanCounts | None, layout: Layout) -> scipy.sparse.csr_matrix:
    """The per-sentence statistics (sentences × ``layout.width``), sparse (module docstring)."""
    import scipy.sparse

    k, T = layout.k, layout.T
    sentence, gold = aligned.sentence, aligned.gold.astype(np.int64)
    rows, cols = [sentence], [gold]
    if counts is not None:
        rows.append(sentence[counts.gold.start])
        cols.append(k + counts.gold.type)
    for s in range(layout.S):
        base = layout.shared + s * layout.per_system
        predicted = aligned.systems[s].astype(np.int64)
        wrong = np.flatnonzero(predicted != gold)
        rows.append(sentence[wrong])
        cols.append(base + gold[wrong] * k + predicted[wrong])
        if counts is None:
            continue
        mine, span_base = counts.per_system[s], base + k * k
        unmatched_gold = np.ones(counts.gold.size, bool)
        unmatched_gold[mine.matched[mine.matched >= 0]] = False
        stored = mine.error > 0  # every class but correct
        rows += [sentence[counts.gold.start[unmatched_gold]], sentence[mine.spans.start[mine.matched < 0]],
                 sentence[mine.spans.start[stored]], sentence[counts.gold.start[mine.missed]],
                 sentence[mine.spans.start[mine.type_incorrect]], sentence[counts.gold.start[mine.type_missed]]]
        column = {name: span_base + 2 * T + STORED_ERRORS.index(name) for name in ("missed", *TYPE_VIEW)}
        cols += [span_base + counts.gold.type[unmatched_gold], span_base + T + mine.spans.type[mine.matched < 0],
                 span_base + 2 * T + mine.error[stored] - 1,
                 np.full(int(mine.missed.sum()), column["missed"]),
                 np.full(int(mine.type_incorrect.sum()), column["type_incorrect"]),
                 np.full(int(mine.type_missed.sum()), column["type_missed"])]
    row, col = np.concatenate(rows), np.concatenate(cols)
    matrix = scipy.sparse.csr_matrix((np.ones(row.size), (row, col)), shape=(aligned.n_sentences, layout.width))
    matrix.sum_duplicates()
    return matrix


def totals(aligned: Aligned, counts: SpanCounts | None, layout: Layout) -> np.ndarray:
    """Column sums of :func:`statistics_matrix` over every sentence, without building it."""
    k, T = layout.k, layout.T
    out = np.zeros(layout.width)
    gold = aligned.gold.astype(np.int64)
    out[:k] = np.bincount(gold, minlength=k)
    if counts is not None:
        out[k:layout.shared] = np.bincount(counts.gold.type, minlength=T)
    diagonal = np.arange(k) * (k + 1)
    for s in range(layout.S):
        base = layout.shared + s * layout.per_system
        cells = np.bincount(gold * k + aligned.systems[s], minlength=k * k).astype(float)  # int64 + int16: int64
        cells[diagonal] = 0
        out[base:base + k * k] = cells
        if counts is None:
            continue
        mine, span_base = counts.per_system[s], base + k * k
        hit = mine.matched[mine.matched >= 0]
        out[span_base:span_base + T] = np.bincount(counts.gold.type, minlength=T) - \
            np.bincount(counts.gold.type[hit], minlength=T)
        out[span_base + T:span_base + 2 * T] = np.bincount(mine.spans.type[mine.matched < 0], minlength=T)
        errors = np.bincount(mine.error, minlength=len(ERRORS)).astype(float)
        errors[ERRORS.index("missed")] = mine.missed.sum()
        out[span_base + 2 * T:span_base + 2 * T + len(STORED_ERRORS)] = [*errors[1:], mine.type_incorrect.sum(),
                                                                        mine.type_missed.sum()]
    return out


def type_map(codes: TagCodes) -> tuple[np.ndarray, tuple[str, ...]]:
    """Tag code -> type class (``O`` class 0, then the types), and the type labels."""
    labels = ("O", *codes.types) if "O" not in codes.types else tuple(codes.types)
    mapping = np.where(codes.type < 0, 0, codes.type + 1) if "O" not in codes.types else codes.type
    return mapping.astype(np.int64), labels
