"""Benchmark: the wildcard matcher stays linear on a pathological pattern.

Prints the time to match ``*a*b*a*b*c`` (and a ``?`` variant) against 100 KB and 1 MB
texts, and the 1 MB / 100 KB ratio (about 10 means linear). A backtracking regex never
finishes these inputs.
"""

from __future__ import annotations

import time

from shellpilot.permission.wildcard import match


def _best_ms(text: str, pattern: str, rounds: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        match(text, pattern)
        best = min(best, (time.perf_counter() - start) * 1000)
    return best


def main() -> None:
    # The first fails at the anchored tail at once; the others must scan the whole text.
    cases = [
        ("*a*b*a*b*c", "ab"),
        ("*a*b*a*b*c*", "ab"),
        ("*a?a*b?b*c*", "ab"),
        ("*a*a*a*a*b*", "a"),
        ("*ab*ab*abc*x", "ab"),
        ("*a?c*", "ab"),  # worst case for "?": every "a" is a candidate
    ]
    for pattern, unit in cases:
        small = unit * (100_000 // len(unit))
        large = unit * (1_000_000 // len(unit))
        t_small = _best_ms(small, pattern)
        t_large = _best_ms(large, pattern)
        print(
            f"{pattern!r:16} 100 KB: {t_small:8.3f} ms   1 MB: {t_large:8.3f} ms   "
            f"ratio {t_large / max(t_small, 1e-6):5.1f}"
        )


if __name__ == "__main__":
    main()
