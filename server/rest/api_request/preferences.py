"""The headers of a request (PostgREST's ApiRequest/Preferences.hs, with its Accept and
Range handling): Prefer, the media type an Accept asks for (and the `for` of a plan), and
the Range of a read. Accept and Prefer parse once per distinct text (lru caches)."""

from __future__ import annotations

import functools
import re

from server.rest import errors
from server.rest.api_request.bounds import MAX_BIGINT, bounded_int
from server.rest.api_request.types import PLAN_TARGETS, MediaType, Prefer

_PREFER_VALUES = {
    "return": {"minimal", "headers-only", "representation"},
    "count": {"exact", "planned", "estimated"},
    "resolution": {"merge-duplicates", "ignore-duplicates"},
    "missing": {"default", "null"},
    "tx": {"commit", "rollback"},
    "handling": {"strict", "lenient"},
    "params": {"single-object", "multiple-objects"},
}


def parse_prefer(values: list[str]) -> Prefer:
    chosen: dict[str, str] = {}  # the first valid value of each preference
    max_affected: int | None = None  # the last valid one
    invalid: list[str] = []
    for header in values:
        for token in header.split(","):
            token = token.strip()
            if not token:
                continue
            key, _, val = token.partition("=")
            key, val = key.strip(), val.strip().strip('"')
            if key == "max-affected" and bounded_int(val, MAX_BIGINT) is not None:
                max_affected = bounded_int(val, MAX_BIGINT)
            elif key in ("timezone",):
                continue
            elif key in _PREFER_VALUES and val in _PREFER_VALUES[key]:
                chosen.setdefault("return_" if key == "return" else key, val)
            else:
                invalid.append(token)
    if chosen.get("handling") == "strict" and invalid:
        raise errors.invalid_preferences(invalid)
    return Prefer(return_=chosen.get("return_"), count=chosen.get("count"), resolution=chosen.get("resolution"),
                  missing=chosen.get("missing"), tx=chosen.get("tx"), handling=chosen.get("handling"),
                  max_affected=max_affected, params=chosen.get("params"), invalid=tuple(invalid))


def parse_accept(header: str | None, plan_enabled: bool) -> MediaType:
    if not header or not header.strip():
        return MediaType("json")
    offered = []
    for index, part in enumerate(header.split(",")):
        pieces = [p.strip() for p in part.split(";")]
        mime = pieces[0].lower()
        params = {}
        for p in pieces[1:]:
            k, _, v = p.partition("=")
            params[k.strip().lower()] = v.strip().strip('"')
        try:
            q = float(params.get("q", "1"))
        except ValueError:
            q = 1.0
        offered.append((-q, index, mime, params))
    offered.sort()
    for _, _, mime, params in offered:
        stripped = params.get("nulls") == "stripped"
        if mime in ("application/json", "*/*", "application/*"):
            return MediaType("json")
        if mime == "application/vnd.pgrst.array+json" or mime == "application/vnd.pgrst.array":
            return MediaType("json", nulls_stripped=stripped)
        if mime in ("application/vnd.pgrst.object+json", "application/vnd.pgrst.object"):
            return MediaType("object", nulls_stripped=stripped)
        if mime in ("text/csv",):
            return MediaType("csv")
        if mime in ("text/plain", "text/*"):
            return MediaType("text")
        if mime == "application/octet-stream":
            return MediaType("octet")
        if mime == "application/geo+json":
            return MediaType("geojson")
        if plan_enabled and mime in _PLAN_FORMATS:
            requested = params.get("options", "").split("|")
            opts = tuple(o for o in PLAN_OPTIONS if o in requested)
            return MediaType("plan", plan_format=_PLAN_FORMATS[mime], plan_options=opts,
                             plan_for=_plan_for(params.get("for")))
    raise errors.media_type_error([o[2] for o in sorted(offered, key=lambda o: o[1])])


# application/vnd.pgrst.plan is the text plan, as in PostgREST's MediaType.decodeMediaType
_PLAN_FORMATS = {"application/vnd.pgrst.plan": "text", "application/vnd.pgrst.plan+text": "text",
                 "application/vnd.pgrst.plan+json": "json"}
PLAN_OPTIONS = ("analyze", "verbose", "settings", "buffers", "wal")
_PLAN_ALIASES = {"application/vnd.pgrst.object": "application/vnd.pgrst.object+json",
                 "application/vnd.pgrst.array+json": "application/json", "application/vnd.pgrst.array": "application/json"}


def _plan_for(value: str | None) -> str | None:
    """The `for` of a plan media type, normalized (`application/vnd.pgrst.object` names the
    object+json one); None when absent or not a media type a relation produces."""
    if not value:
        return None
    mime = "".join(value.lower().split())
    mime = _PLAN_ALIASES.get(mime, mime)
    return mime if mime in PLAN_TARGETS else None


def parse_range(header: str | None) -> tuple[int, int | None] | None:
    if not header:
        return None
    m = re.fullmatch(r"\s*(?:items=)?(\d+)-(\d*)\s*", header, re.ASCII)
    if not m:
        return None
    lower = bounded_int(m.group(1), MAX_BIGINT)
    upper = bounded_int(m.group(2), MAX_BIGINT) if m.group(2) else None
    if lower is None or (m.group(2) and upper is None):
        raise errors.invalid_range(f"The Range header's bounds must be at most {MAX_BIGINT}.")
    if upper is not None and upper < lower:
        raise errors.invalid_range("The lower boundary must be lower than or equal to the upper boundary in the Range header.")
    return lower, (upper - lower + 1) if upper is not None else None


# Accept and Prefer headers by their text: a client sends the same few. The header's size is
# bounded by the HTTP server, the count here.
@functools.lru_cache(maxsize=128)
def _accepted(header: str | None, plan_enabled: bool) -> MediaType:
    return parse_accept(header, plan_enabled)


@functools.lru_cache(maxsize=128)
def _preferences(header: str | None) -> Prefer:
    return parse_prefer(header.split("\n") if header else [])
