"""wording.py -- counts in messages and reports, the noun agreeing with the number: "1 state", "2,000 states"."""

from __future__ import annotations


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`n` (with thousands separators) and `noun`, which is `plural` (default: noun + "s") unless n == 1."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"
