"""Claims as printed: ``"macro_f1=65.4 accuracy=66.1%"`` -> frozen :class:`Claim` records.

A claim is a number as printed (percent or fraction); its rounding is the half-unit of its
last printed digit, so ``65.4`` stands for [0.6535, 0.6545].
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Sequence

from auditor.errors import UsageError

_CLAIM = re.compile(r"([^=]+)=([-+]?[0-9]*\.?[0-9]+)(%?)")


@dataclass(frozen=True)
class Claim:
    """A reported number as printed: ``name``, ``text`` (digits as printed), ``percent``."""

    name: str
    text: str
    value: float
    decimals: int
    percent: bool

    @property
    def half_unit(self) -> float:
        """Half a unit of the last printed digit, 0.5 · 10^(−decimals)."""
        return 0.5 * 10.0 ** (-self.decimals)

    @property
    def interval(self) -> tuple[float, float]:
        """The values on [0, 1] (or [-1, 1]) that print as ``text``."""
        scale = 100.0 if self.percent else 1.0
        return ((self.value - self.half_unit) / scale, (self.value + self.half_unit) / scale)

    @property
    def shown(self) -> str:
        """The claim as the user wrote it (``%`` kept where it was needed to read a percentage)."""
        return f"{self.name}={self.text}{'%' if self.percent and abs(self.value) <= 1 else ''}"


def decimals(text: str) -> int:
    """Number of printed decimals of ``text`` (``"65.40"`` -> 2)."""
    try:
        exponent = Decimal(text).as_tuple().exponent
    except InvalidOperation:
        raise UsageError(f"{text!r} is not a number") from None
    return max(0, -int(exponent))


def parse_claims(items: Sequence[str]) -> tuple[Claim, ...]:
    """``["macro_f1=65.4 accuracy=66.1%", "kappa=0.41"]`` -> claims.

    A value with ``%`` or above 1 is a percentage, otherwise a fraction.
    """
    claims = []
    for token in (t for item in items for t in item.replace(",", " ").split()):
        match = _CLAIM.fullmatch(token)
        if not match:
            raise UsageError(f"claim {token!r}: expected NAME=NUMBER as printed, e.g. macro_f1=65.4")
        name, text, percent_sign = match.groups()
        value = float(text)
        claims.append(Claim(name, text, value, decimals(text), bool(percent_sign) or abs(value) > 1))
    if not claims:
        raise UsageError("no claim given; write NAME=NUMBER as printed, e.g. macro_f1=65.4")
    return tuple(claims)
