"""Counting translation segments: sacrebleu's tokenisation, per-segment unigram type counts, and
sacrebleu's own BLEU and chrF sufficient statistics.

Every text is tokenised once with sacrebleu's BLEU tokeniser (``13a`` by default; lowercased first
with ``--lowercase``, as sacrebleu does). Tokens are mapped to type ids once (one vocabulary for
the references and every system); a side's counts are the sparse matrix ``X[segment, type]``
(duplicates summed). With several references, the reference count of a type in a segment is the
largest over the references (Gowda et al. 2021; the issue's rule), used in both Match and Refs:
``Match = min(H, R_max)`` element-wise.

BLEU's and chrF's per-segment statistics come from sacrebleu's own segment functions on the
same tokenised (BLEU) or preprocessed (chrF) text, so corpus values equal ``corpus_bleu`` and
``corpus_chrf`` and resampling re-sums them (STYLE.md 1).
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import Mapping, Sequence

import numpy as np
import scipy.sparse


def scorers(tokenize: str, lowercase: bool):
    """sacrebleu's BLEU and chrF objects with this audit's options (defaults otherwise)."""
    from sacrebleu.metrics import BLEU, CHRF

    return BLEU(tokenize=tokenize, lowercase=lowercase), CHRF(lowercase=lowercase)


@dataclass(frozen=True)
class Vocabulary:
    """Type id -> token, grown as sides are added; ``ids(tokens)`` maps without a Python loop body."""

    index: dict[str, int]

    def ids(self, tokens: list[str]) -> np.ndarray:
        for token in dict.fromkeys(tokens):
            self.index.setdefault(token, len(self.index))
        return np.fromiter(map(self.index.__getitem__, tokens), dtype=np.int64, count=len(tokens))

    @property
    def types(self) -> list[str]:
        return list(self.index)


@dataclass(frozen=True)
class Side:
    """One tokenised text: flat type ids, the segment of each, and each segment's token count."""

    ids: np.ndarray
    segment: np.ndarray
    lengths: np.ndarray

    def matrix(self, n_types: int) -> scipy.sparse.csr_matrix:
        """``X[segment, type]`` counts (CSR, duplicates summed)."""
        data = np.ones(self.ids.size, dtype=np.float64)
        shape = (self.lengths.size, n_types)
        return scipy.sparse.csr_matrix((data, (self.segment, self.ids)), shape=shape)


def tokenise(lines: Sequence[str], bleu) -> list[str]:
    """Each segment as sacrebleu's BLEU preprocessing gives it (lowercase, tokenise)."""
    return list(map(bleu._preprocess_segment, lines))


def side(tokenised: Sequence[str], vocabulary: Vocabulary) -> Side:
    """Token ids of tokenised segments (tokens are separated by spaces, as sacrebleu splits them)."""
    split = [segment.split() for segment in tokenised]
    lengths = np.fromiter(map(len, split), dtype=np.int64, count=len(split))
    ids = vocabulary.ids(list(chain.from_iterable(split)))
    return Side(ids, np.repeat(np.arange(lengths.size), lengths), lengths)


@dataclass(frozen=True)
class TypeCounts:
    """Per segment and type: the system's count ``H`` and the largest reference count ``R``;
    ``M = min(H, R)``. CSR matrices (segments x types), float64."""

    match: scipy.sparse.csr_matrix
    predicted: scipy.sparse.csr_matrix

    def totals(self, reference: scipy.sparse.csr_matrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Match(c), Preds(c), Refs(c) summed over segments."""
        return (np.asarray(self.match.sum(axis=0)).ravel(), np.asarray(self.predicted.sum(axis=0)).ravel(),
                np.asarray(reference.sum(axis=0)).ravel())


def reference_matrix(sides: Sequence[Side], n_types: int) -> scipy.sparse.csr_matrix:
    """``R[segment, type]`` = the largest count over the references."""
    matrix = sides[0].matrix(n_types)
    for other in sides[1:]:
        matrix = matrix.maximum(other.matrix(n_types))
    return matrix.tocsr()


def type_counts(system: Side, reference: scipy.sparse.csr_matrix) -> TypeCounts:
    """Match and predicted counts of one system against the (max-over-references) counts."""
    predicted = system.matrix(reference.shape[1])
    return TypeCounts(predicted.minimum(reference).tocsr(), predicted)


def bleu_reference_cache(bleu, tokenised_references: Sequence[Sequence[str]]) -> list[dict]:
    """sacrebleu's ``_cache_references`` on already tokenised references (one pass for all systems)."""
    bleu.num_refs = len(tokenised_references)
    return [bleu._extract_reference_info(list(lines)) for lines in zip(*tokenised_references)]


def chrf_reference_cache(chrf, references: Sequence[Sequence[str]]) -> list[dict]:
    """sacrebleu's chrF reference n-grams, once for all systems."""
    chrf.num_refs = len(references)
    return [chrf._extract_reference_info([chrf._preprocess_segment(x) for x in lines]) for lines in zip(*references)]


def segment_statistics(lines: Sequence[str], bleu, chrf, bleu_cache: Sequence[dict], chrf_cache: Sequence[dict],
                       memo: list[dict[str, tuple]]) -> tuple[list[str], list[list[int]], list[list[int]]]:
    """Tokens and sacrebleu's BLEU and chrF statistics of each segment; an output another system already
    gave for the same segment is looked up in ``memo`` (41% of the WMT21 TED outputs repeat one)."""
    tokens, bleu_rows, chrf_rows = [], [], []
    for segment, line in enumerate(lines):
        found = memo[segment].get(line)
        if found is None:
            tokenised = bleu._preprocess_segment(line)
            found = (tokenised, bleu._compute_segment_statistics(tokenised, bleu_cache[segment]),
                     chrf._compute_segment_statistics(chrf._preprocess_segment(line), chrf_cache[segment]))
            memo[segment][line] = found
        tokens.append(found[0])
        bleu_rows.append(found[1])
        chrf_rows.append(found[2])
    return tokens, bleu_rows, chrf_rows


@dataclass(frozen=True)
class Corpus:
    """Everything later stages read: per system its type counts and BLEU/chrF statistics, the
    reference counts, the vocabulary, and sacrebleu's signatures."""

    systems: tuple[str, ...]
    n_segments: int
    reference: scipy.sparse.csr_matrix
    counts: Mapping[str, TypeCounts]
    bleu: Mapping[str, np.ndarray]
    chrf: Mapping[str, np.ndarray]
    types: tuple[str, ...]
    empty: Mapping[str, int]
    signatures: Mapping[str, str]
    bleu_scorer: object
    chrf_scorer: object


def count_corpus(references: Sequence[Sequence[str]], systems: Mapping[str, Sequence[str]], tokenize: str,
                 lowercase: bool) -> Corpus:
    """Tokenise and count every text once (references shared by all systems)."""
    bleu, chrf = scorers(tokenize, lowercase)
    vocabulary = Vocabulary({})
    tokenised_refs = [tokenise(ref, bleu) for ref in references]
    ref_sides = [side(tokens, vocabulary) for tokens in tokenised_refs]
    bleu_cache = bleu_reference_cache(bleu, tokenised_refs)
    chrf_cache = chrf_reference_cache(chrf, references)
    sides, bleu_stats, chrf_stats, empty = {}, {}, {}, {}
    memo: list[dict[str, tuple]] = [{} for _ in range(len(references[0]))]
    for name, lines in systems.items():
        tokens, bleu_rows, chrf_rows = segment_statistics(lines, bleu, chrf, bleu_cache, chrf_cache, memo)
        sides[name] = side(tokens, vocabulary)
        bleu_stats[name] = np.array(bleu_rows, dtype=np.float64).reshape(len(lines), 2 + 2 * bleu.max_ngram_order)
        chrf_stats[name] = np.array(chrf_rows, dtype=np.float64).reshape(len(lines), 3 * chrf.order)
        empty[name] = int((sides[name].lengths == 0).sum())
    n_types = len(vocabulary.index)
    reference = reference_matrix(ref_sides, n_types)
    counts = {name: type_counts(s, reference) for name, s in sides.items()}
    return Corpus(tuple(systems), len(references[0]), reference, counts, bleu_stats, chrf_stats,
                  tuple(vocabulary.types), empty,
                  {"bleu": str(bleu.get_signature()), "chrf": str(chrf.get_signature())}, bleu, chrf)
