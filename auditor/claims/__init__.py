"""Checking numbers a paper reports against the evidence (``auditor check-claim``):
``parse`` (claims as printed) -> ``evidence`` (counts from a matrix, predictions or a
per-class table) -> ``definitions`` (every way of computing a number) -> ``check``
(compare within rounding) -> ``text`` (the terminal table)."""
