"""Claim check for reviewers: which metric definition reproduces a reported number?

Every definition (:mod:`auditor.claims.definitions`) is evaluated on the evidence
(:mod:`auditor.claims.evidence`) — a range when the evidence leaves several tables possible —
and compared with each claim (:mod:`auditor.claims.parse`) within its rounding. The result is
a frozen :class:`ClaimCheck`; :mod:`auditor.claims.text` prints it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from auditor.claims.definitions import Definition, DefinitionValue, definitions
from auditor.claims.evidence import (
    EPS,
    Evidence,
    from_predictions,
    read_confusion,
    read_table,
)
from auditor.claims.parse import Claim, parse_claims
from auditor.errors import UsageError
from auditor.metrics.registry import REGISTRY

#: Why a definition has no value on evidence without the full matrix (a per-class table).
NEEDS_MATRIX = "needs the full confusion matrix; the evidence gives per-class counts only"
#: Bare names that several averages answer to (normalised: lower case, letters and digits): the claim is
#: ambiguous, and the check lists each average's value (micro P, R and F1 of single-label data = accuracy).
AMBIGUOUS = {
    **dict.fromkeys(("f1", "f", "fscore", "f1score", "fmeasure"), ("macro_f1", "weighted_f1", "accuracy")),
    "precision": ("macro_precision", "weighted_precision", "accuracy"),
    "recall": ("macro_recall", "weighted_recall", "accuracy"),
}


@dataclass(frozen=True)
class Match:
    """One definition's value on the evidence (``range`` = lowest and highest over the
    candidate tables; ``value`` their midpoint) and, if it misses a claim, by how much."""

    definition: str
    description: str
    range: tuple[float, float]
    distance: float | None = None

    @property
    def value(self) -> float:
        return (self.range[0] + self.range[1]) / 2

    def to_json(self) -> dict[str, Any]:
        return {"definition": self.definition, "description": self.description, "value": self.value,
                "range": list(self.range)}


@dataclass(frozen=True)
class Undefined:
    """A definition without a value on this evidence, and why."""

    definition: str
    reason: str


@dataclass(frozen=True)
class ClaimResult:
    """One claim checked: the metric its name resolves to (``named_as``, None if it names no
    metric) and whether that reproduces it, the definitions that reproduce it within rounding,
    and the others, closest first."""

    claim: Claim
    named_as: str | None
    named_value: float | None
    named_reproduces: bool | None
    matches: tuple[Match, ...]
    not_reproduced_by: tuple[str, ...]
    ambiguous: tuple[Match, ...] = ()

    @property
    def reproduced_by(self) -> tuple[str, ...]:
        return tuple(match.definition for match in self.matches)

    @property
    def holds(self) -> bool:
        """The metric the claim names reproduces it; an ambiguous name (``f1``) never holds; a name that is no
        metric: some definition does."""
        if self.ambiguous:
            return False
        return self.named_reproduces if self.named_reproduces is not None else bool(self.matches)

    def to_json(self) -> dict[str, Any]:
        return {"claim": self.claim.shown, "name": self.claim.name, "printed": self.claim.text,
                "percent": self.claim.percent, "interval": list(self.claim.interval), "named_as": self.named_as,
                "named_value": self.named_value, "named_reproduces": self.named_reproduces,
                "reproduced_by": list(self.reproduced_by), "matches": [m.to_json() for m in self.matches],
                "not_reproduced_by": list(self.not_reproduced_by), "holds": self.holds,
                "ambiguous": [m.to_json() for m in self.ambiguous]}


@dataclass(frozen=True)
class ClaimCheck:
    """The claim check: one result per claim, the definitions undefined on this evidence, and
    whether the numbers can hold together (``problems`` empty)."""

    evidence: Evidence
    rows: tuple[ClaimResult, ...]
    problems: tuple[str, ...]
    undefined: tuple[Undefined, ...] = ()

    @property
    def consistent(self) -> bool:
        return not self.problems

    @property
    def holds(self) -> bool:
        """Every claim holds and the numbers hold together (``auditor check-claim`` exits 0, else 1)."""
        return self.consistent and all(row.holds for row in self.rows)

    def to_json(self) -> dict[str, Any]:
        return {"evidence": self.evidence.to_json(), "claims": [row.to_json() for row in self.rows],
                "consistent": self.consistent, "problems": list(self.problems),
                "undefined": [{"definition": u.definition, "reason": u.reason} for u in self.undefined]}


def value_range(definition: Definition, evidence: Evidence) -> tuple[float, float] | str:
    """Lowest and highest value of ``definition`` over the evidence's candidate tables, or
    the reason it is undefined on every one of them."""
    values, reasons = [], []
    for stats in evidence.candidates:
        try:
            with np.errstate(all="ignore"):
                result = definition.function(stats)
        except (TypeError, AttributeError, IndexError, ValueError):
            if stats.C is not None:
                raise
            result = DefinitionValue(None, NEEDS_MATRIX)  # NIT, calibrated metrics from a per-class table
        if result.value is None:
            reasons.append(result.undefined or "0/0")
        else:
            values.append(result.value)
    return (min(values), max(values)) if values else reasons[0]


def _named(name: str) -> str | None:
    try:
        return REGISTRY.resolve(name)
    except UsageError:
        return None


def _check_one(claim: Claim, evaluated: Sequence[tuple[Definition, tuple[float, float]]]) -> ClaimResult:
    lo, hi = claim.interval
    named = _named(claim.name)
    matches, misses = [], []
    for definition, (vlo, vhi) in evaluated:
        if vhi >= lo - EPS and vlo <= hi + EPS:
            matches.append(Match(definition.id, definition.description, (vlo, vhi)))
        else:
            misses.append(Match(definition.id, definition.description, (vlo, vhi),
                                min(abs(vlo - hi), abs(vhi - lo))))
    named_entry = next((m for m in matches + misses if m.definition == named), None)
    reproduces = named is not None and any(m.definition == named for m in matches)
    readings = AMBIGUOUS.get("".join(ch for ch in claim.name.lower() if ch.isalnum()), ()) if named is None else ()
    every = {m.definition: m for m in matches + misses}
    return ClaimResult(claim, named, None if named_entry is None else named_entry.value,
                       reproduces if named else None, tuple(matches),
                       tuple(m.definition for m in sorted(misses, key=lambda m: m.distance)),
                       tuple(every[d] for d in readings if d in every))


def check_claims(claims: Sequence[Claim], evidence: Evidence) -> ClaimCheck:
    """Compare every claim with every definition evaluated on ``evidence``."""
    evaluated: list[tuple[Definition, tuple[float, float]]] = []
    undefined: list[Undefined] = []
    spans: dict[str, tuple[float, float]] = {}
    for definition in definitions(evidence.labels):
        span = value_range(definition, evidence)
        if isinstance(span, str):
            undefined.append(Undefined(definition.id, span))
            continue
        spans[definition.id] = span
        # A zero_division variant that changes nothing on this evidence is not a separate definition.
        convention = "[zero_division" in definition.id or "[undefined" in definition.id
        if convention and definition.metric in spans and np.allclose(spans[definition.metric], span, atol=EPS):
            continue
        evaluated.append((definition, span))
    problems = list(evidence.problems)
    rows = tuple(_check_one(claim, evaluated) for claim in claims)
    for row in rows:
        if not row.matches:
            problems.append(f"{row.claim.name}={row.claim.text}: no definition reproduces it from this evidence")
        if row.named_as == "accuracy" and not row.named_reproduces and row.named_value is not None \
                and evidence.kind == "per-class table":
            problems.append(f"accuracy must equal Σ TP / N = {row.named_value:.4f} from the table's recall and "
                            f"support; {row.claim.text} cannot hold")
    intervals = {row.named_as: row.claim.interval for row in rows if row.named_as}
    if "macro_f1" in intervals and "macro_f1_hm" in intervals \
            and intervals["macro_f1_hm"][1] < intervals["macro_f1"][0] - EPS:
        problems.append("macro F1′ (HM of macro P and macro R) is never below macro F1 (the harmonic mean is "
                        "concave; Opitz 2024 §4.5), but the reported F1′ is")
    return ClaimCheck(evidence, rows, tuple(problems), tuple(undefined))


def check(claims: Sequence[str], confusion: str | None = None, table: str | None = None,
          gold: str | None = None, system: str | None = None, labels: Sequence[str] | None = None) -> ClaimCheck:
    """The ``check-claim`` command's library call: parse claims, read one kind of evidence, check."""
    given = [x is not None for x in (confusion, table, gold)]
    if sum(given) != 1 or (gold is None) != (system is None):
        raise UsageError("give exactly one kind of evidence: --confusion FILE, --table FILE, or --gold GOLD "
                         "--system SYSTEM")
    parsed = parse_claims(claims)
    if confusion is not None:
        evidence = read_confusion(confusion)
    elif table is not None:
        evidence = read_table(table)
    else:
        evidence = from_predictions(gold, system, labels)
    return check_claims(parsed, evidence)
