"""The server settings a plan depends on (PostgREST's db-max-rows, db-tx-end, db-aggregates-enabled)."""

from __future__ import annotations

from dataclasses import dataclass

from server.rest.api_request.types import Prefer


@dataclass(frozen=True, slots=True)
class PlanConfig:
    max_rows: int | None
    tx_end: str  # commit | commit-allow-override | rollback | rollback-allow-override
    aggregates_enabled: bool

    def row_limit(self, limit: int | None) -> int | None:
        """The requested limit, capped by max-rows."""
        if self.max_rows is None:
            return limit
        return self.max_rows if limit is None else min(limit, self.max_rows)

    def rollback(self, prefer: Prefer) -> tuple[bool, str | None]:
        """(roll back at the end, the Preference-Applied entry when the client chose)."""
        if self.tx_end.endswith("allow-override") and prefer.tx:
            return prefer.tx == "rollback", f"tx={prefer.tx}"
        return self.tx_end.startswith("rollback"), None
