"""/functions/v1: Edge Functions (supabase/functions/<name>) run on Deno."""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.functions.service import FunctionsService

if TYPE_CHECKING:
    from server.core.context import AppContext


def build(ctx: AppContext) -> FunctionsService:
    return FunctionsService(ctx)
