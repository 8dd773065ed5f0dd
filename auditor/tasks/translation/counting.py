"""Counting translation segments: sacrebleu's tokenisation, per-segment unigram type counts, and
sacrebleu's own BLEU and chrF sufficient statistics.

Every text is tokenised once with sacrebleu's BLEU tokeniser (``13a`` by default; lowercased first
with ``--lowercase``, as sacrebleu does). Tokens are mapped to type ids once (one vocabulary for
the references and every system); a side's counts are the sparse matrix ``X[segment, type]``
(duplicates summed). With several references, the reference count of a type in a segment is the
largest over the references (Gowda et al. 2021; the issue's rule), used in both Match and Refs:
``Match = min(H, R_max)`` element-wise.

BLEU's and chrF's per-segment statistics are sacrebleu's, computed with array code from the same
tokenised (BLEU) or preprocessed (chrF) text (:mod:`.ngrams`), so corpus values equal
``corpus_bleu`` and ``corpus_chrf`` and resampling re-sums them (docs/architecture.md, "Counts first").
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import Mapping, Sequence

import numpy as np
import scipy.sparse

from auditor.tasks.translation.ngrams import Symbols, bleu_statistics, characters, chrf_statistics


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


#: The first rule of sacrebleu's ``TokenizerRegexp`` (13a), ``([\{-\~\[-\` -\&\(-\+\:-\@\/])`` -> `` \1 ``,
#: as a translation table: the regular expression matches single characters, so replacing each one
#: is the same, in C instead of a Python template expansion per match (Python 3.11's ``re.sub``).
PUNCTUATION = {c: f" {chr(c)} " for c in (*range(0x7B, 0x7F), *range(0x5B, 0x61), *range(0x20, 0x27),
                                          *range(0x28, 0x2C), *range(0x3A, 0x41), 0x2F)}


def tokenise(lines: Sequence[str], bleu) -> list[str]:
    """Each segment as sacrebleu's BLEU preprocessing gives it (lowercase, tokenise); 13a through
    :func:`tokenise_13a` (equal to sacrebleu's ``Tokenizer13a``; tested)."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    if type(bleu.tokenizer) is not Tokenizer13a:
        return list(map(bleu._preprocess_segment, lines))
    if bleu.lowercase:
        lines = [line.lower() for line in lines]
    rules = bleu.tokenizer._post_tokenizer._re[1:]
    return [tokenise_13a(line.rstrip(), rules) for line in lines]


def tokenise_13a(line: str, rules) -> str:
    """sacrebleu's ``Tokenizer13a.__call__`` with its first regular expression as :data:`PUNCTUATION`;
    ``rules``: its other (pattern, replacement) pairs."""
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    line = f" {line} ".translate(PUNCTUATION)
    for pattern, replacement in rules:
        line = pattern.sub(replacement, line)
    return " ".join(line.split())


def side(tokenised: Sequence[str], vocabulary: Vocabulary) -> Side:
    """Token ids of tokenised segments (tokens are separated by spaces, as sacrebleu splits them)."""
    split = [segment.split() for segment in tokenised]
    lengths = np.fromiter(map(len, split), dtype=np.int64, count=len(split))
    ids = vocabulary.ids(list(chain.from_iterable(split)))
    return Side(ids, np.repeat(np.arange(lengths.size), lengths), lengths)


def flat_sum(matrix: scipy.sparse.spmatrix, axis: int) -> np.ndarray:
    """A counts matrix (segments x types) summed over segments (``axis`` 0: per type) or types (1: per segment),
    as a flat array."""
    return np.asarray(matrix.sum(axis=axis)).ravel()


@dataclass(frozen=True)
class TypeCounts:
    """Per segment and type: the system's count ``H`` and the largest reference count ``R``;
    ``M = min(H, R)``. CSR matrices (segments x types), float64."""

    match: scipy.sparse.csr_matrix
    predicted: scipy.sparse.csr_matrix

    def totals(self, reference: scipy.sparse.csr_matrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Match(c), Preds(c), Refs(c) summed over segments."""
        return flat_sum(self.match, 0), flat_sum(self.predicted, 0), flat_sum(reference, 0)


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
    bleu.num_refs = chrf.num_refs = len(references)  # what sacrebleu's signatures report
    vocabulary = Vocabulary({})
    ref_sides = [side(tokenise(ref, bleu), vocabulary) for ref in references]
    sides = {name: side(tokenise(lines, bleu), vocabulary) for name, lines in systems.items()}
    words = [Symbols(s.ids, s.lengths) for s in (*ref_sides, *sides.values())]
    r = len(references)
    bleu_stats = dict(zip(systems, bleu_statistics(words[:r], words[r:], bleu.max_ngram_order)))
    chars = [characters(list(map(chrf._preprocess_segment, lines))) for lines in (*references, *systems.values())]
    chrf_stats = dict(zip(systems, chrf_statistics(chars[:r], chars[r:], chrf.char_order, chrf.beta)))
    empty = {name: int((s.lengths == 0).sum()) for name, s in sides.items()}
    n_types = len(vocabulary.index)
    reference = reference_matrix(ref_sides, n_types)
    counts = {name: type_counts(s, reference) for name, s in sides.items()}
    return Corpus(tuple(systems), len(references[0]), reference, counts, bleu_stats, chrf_stats,
                  tuple(vocabulary.types), empty,
                  {"bleu": str(bleu.get_signature()), "chrf": str(chrf.get_signature())}, bleu, chrf)
