"""The claim check as plain text for the terminal (``auditor check-claim``)."""
from __future__ import annotations

from auditor.claims.check import ClaimCheck


def _printable(text: str) -> str:
    """Control characters (but newlines) shown as ``\\xNN`` so a label cannot move the cursor."""
    return "".join(f"\\x{ord(ch):02x}" if (ord(ch) < 0x20 and ch != "\n") or 0x7F <= ord(ch) < 0xA0 else ch
                   for ch in text)


def _as_claimed(value: float, percent: bool) -> str:
    """A value in the claim's own scale (×100 for a percentage), two more digits than a percentage prints."""
    return f"{100 * value:.2f}" if percent else f"{value:.4f}"


def _verdicts(check: ClaimCheck) -> list[str]:
    """One line per claim that does not hold, leading with NO and the value on this evidence."""
    out = []
    for row in check.rows:
        percent = row.claim.percent
        if row.ambiguous:
            readings = ", ".join(f"{'micro (= accuracy)' if m.definition == 'accuracy' else m.definition} "
                                 f"{_as_claimed(m.value, percent)}" for m in row.ambiguous)
            out.append(f"AMBIGUOUS: {row.claim.shown} names no one average: {readings}; name the one reported.")
        elif row.named_reproduces is False:
            value = _as_claimed(row.named_value, percent) if row.named_value is not None else "undefined"
            out.append(f"NO: {row.claim.shown} does not hold: {row.named_as} is {value} on this evidence.")
    return out


def format_report(check: ClaimCheck) -> str:
    """The verdict first (a claim that does not hold: NO and the value its metric has), then per claim whether
    its name reproduces it and which definitions do (hints to how a number was computed, not a defence)."""
    evidence = check.evidence
    out = [f"Evidence: {evidence.kind} ({len(evidence.labels)} classes: "
           f"{', '.join(evidence.labels)}){'' if evidence.exact else ' — values are ranges'}"]
    out += [f"  note: {note}" for note in evidence.notes]
    out.append("")
    verdicts = _verdicts(check)
    if verdicts:
        out += verdicts + [""]
    width = max(len(row.claim.shown) for row in check.rows) + 2
    out.append(f"{'claim':<{width}}{'as named':<24}reproduced by (within rounding)")
    for row in check.rows:
        if row.ambiguous:
            named = "ambiguous"
        elif row.named_as is None:
            named = "unknown name"
        else:
            mark = "yes" if row.named_reproduces else "NO"
            named = f"{mark} ({row.named_value:.4f})" if row.named_value is not None else f"{mark} (n/a)"
        matches = ", ".join(row.reproduced_by) or "nothing"
        out.append(f"{row.claim.shown:<{width}}{named:<24}{matches}")
        if not row.matches:
            out.append(f"{'':<{width}}{'':<24}closest: " + ", ".join(row.not_reproduced_by[:3]))
    out.append("")
    if check.holds:
        out.append("Every claim holds: the metric each names reproduces it, and the numbers hold together.")
    elif any(row.matches for row in check.rows if row.named_reproduces is False):
        out.append("The definitions that reproduce a claim that does not hold are hints to how it may have been "
                   "computed (a dropped class, a zero_division convention), not a reading of its name.")
    if not check.consistent:
        out.append("The numbers cannot all hold together:")
        out += [f"  - {problem}" for problem in check.problems]
    return _printable("\n".join(out))
