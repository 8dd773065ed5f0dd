"""The claim check as plain text for the terminal (``auditor check-claim``)."""
from __future__ import annotations

from auditor.claims.check import ClaimCheck


def _printable(text: str) -> str:
    """Control characters (but newlines) shown as ``\\xNN`` so a label cannot move the cursor."""
    return "".join(f"\\x{ord(ch):02x}" if (ord(ch) < 0x20 and ch != "\n") or 0x7F <= ord(ch) < 0xA0 else ch
                   for ch in text)


def format_report(check: ClaimCheck) -> str:
    """A plain-text table: per claim, whether its name reproduces it and which definitions do."""
    evidence = check.evidence
    out = [f"Evidence: {evidence.kind} ({len(evidence.labels)} classes: "
           f"{', '.join(evidence.labels)}){'' if evidence.exact else ' — values are ranges'}"]
    out += [f"  note: {note}" for note in evidence.notes]
    out.append("")
    width = max(len(row.claim.shown) for row in check.rows) + 2
    out.append(f"{'claim':<{width}}{'as named':<24}reproduced by (within rounding)")
    for row in check.rows:
        if row.named_as is None:
            named = "unknown name"
        else:
            mark = "yes" if row.named_reproduces else "NO"
            named = f"{mark} ({row.named_value:.4f})" if row.named_value is not None else f"{mark} (n/a)"
        matches = ", ".join(row.reproduced_by) or "nothing"
        out.append(f"{row.claim.shown:<{width}}{named:<24}{matches}")
        if not row.matches:
            out.append(f"{'':<{width}}{'':<24}closest: " + ", ".join(row.not_reproduced_by[:3]))
    out.append("")
    if check.consistent:
        out.append("The numbers can hold together: every claim is reproduced by some definition.")
    else:
        out.append("The numbers cannot all hold together:")
        out += [f"  - {problem}" for problem in check.problems]
    return _printable("\n".join(out))
