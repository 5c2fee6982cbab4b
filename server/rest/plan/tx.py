"""How a plan's transaction ends: a plan type, made by the plan stage and carried out by
the executor (server/rest/executor.py), which imports it from here."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Tx:
    """How a plan's transaction ends."""

    read_only: bool
    rollback: bool = False  # tx=rollback, db-tx-end, EXPLAIN
    max_affected: int | None = None  # Prefer: max-affected with handling=strict
    singular: bool = False  # a write answered as one object: exactly one row, else roll back

    @property
    def decided_by_result(self) -> bool:
        return self.rollback or self.max_affected is not None or self.singular
