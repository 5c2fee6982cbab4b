"""Which kinds of statement hold a connection long: the pool keeps a reserve of connections
they may not take, so that quick requests keep moving while slow ones fill the rest.

A shape is what a borrower names its work by (REST: its composed statement, the same for
every value a filter or an argument is given). A shape one of whose runs held its
connection past the time budget counts as slow from that moment (found by the pool's sweep, not at
the run's end) for SLOW_FOR seconds: one quick run of a search that is usually slow does not
put it back among the quick ones at once. A shape never seen counts as quick.
"""

from __future__ import annotations

import time
from collections.abc import Hashable

SLOW_FOR = 60.0  # seconds a shape stays slow after a run past the budget
MAX_SHAPES = 4096  # slow shapes remembered; the oldest is forgotten beyond


class SlowShapes:
    def __init__(self, budget: float) -> None:
        self.budget = budget  # seconds a borrower may hold a connection and still count as quick
        self._until: dict[Hashable, float] = {}  # shape -> until when it counts as slow

    def __contains__(self, shape: Hashable) -> bool:
        until = self._until.get(shape)
        if until is None:
            return False
        if until > time.monotonic():
            return True
        del self._until[shape]
        return False

    def mark(self, shape: Hashable) -> None:
        """A run of `shape` has held its connection past the budget."""
        self._until.pop(shape, None)  # re-inserted last: the oldest entry is the first
        if len(self._until) >= MAX_SHAPES:
            del self._until[next(iter(self._until))]
        self._until[shape] = time.monotonic() + SLOW_FOR
