"""GoTrue's models.Factor as JSON: in the user object's `factors` and the admin factor
endpoints. A leaf module (no auth imports), so that models.users can use it."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any


def factor_json(factor: Mapping[str, Any]) -> dict[str, Any]:
    """A factor row (or the same fields read through json_build_object) as GoTrue marshals
    it: friendly_name and the WebAuthn fields only when set, phone "" when there is none."""
    out: dict[str, Any] = {"id": str(factor["id"]), "created_at": _timestamp(factor["created_at"]),
                           "updated_at": _timestamp(factor["updated_at"]), "status": factor["status"]}
    if factor.get("friendly_name"):
        out["friendly_name"] = factor["friendly_name"]
    out["factor_type"] = factor["factor_type"]
    out["phone"] = factor.get("phone") or ""
    out["last_challenged_at"] = _timestamp(factor.get("last_challenged_at"))
    if factor.get("web_authn_aaguid"):
        out["web_authn_aaguid"] = str(factor["web_authn_aaguid"])
    if factor.get("last_webauthn_challenge_data"):
        out["last_webauthn_challenge_data"] = factor["last_webauthn_challenge_data"]
    return out


def _timestamp(value: datetime | str | None) -> str | None:
    """RFC 3339 in UTC with a `Z` (a value read through json_build_object arrives as text)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
