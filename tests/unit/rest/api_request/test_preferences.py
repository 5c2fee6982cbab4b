"""server/rest/api_request/preferences.py: the Prefer, Accept and Range headers."""

from __future__ import annotations

import pytest

from server.rest import errors
from server.rest.api_request.preferences import parse_accept, parse_prefer, parse_range
from server.rest.api_request.query_params import parse_order


def test_headers() -> None:
    p = parse_prefer(["return=representation, count=exact,resolution=merge-duplicates, tx=rollback, max-affected=3"])
    assert (p.return_, p.count, p.resolution, p.tx, p.max_affected) == ("representation", "exact", "merge-duplicates", "rollback", 3)
    with pytest.raises(errors.ApiError) as exc:
        parse_prefer(["handling=strict, bogus=1"])
    assert exc.value.code == "PGRST122"
    assert parse_accept("application/vnd.pgrst.object+json", False).kind == "object"
    assert parse_accept("text/csv;q=0.5, application/json", False).kind == "json"
    with pytest.raises(errors.ApiError) as exc:
        parse_accept("application/vnd.pgrst.plan+json", False)
    assert exc.value.status == 406 and exc.value.code == "PGRST107"
    assert parse_order("a->b.asc,c")[0].field.json_path[0].key == "b"


def test_prefer() -> None:
    p = parse_prefer(["return=minimal", "count=planned, missing=default, handling=lenient, timezone=Europe/Paris",
                      "params=single-object"])
    assert (p.return_, p.count, p.missing, p.handling, p.params, p.invalid) == ("minimal", "planned", "default", "lenient",
                                                                               "single-object", ())
    p = parse_prefer(["return=bogus, count=none, nonsense, resolution=ignore-duplicates, max-affected=-1"])
    assert (p.return_, p.count, p.resolution, p.max_affected) == (None, None, "ignore-duplicates", None)
    assert p.invalid == ("return=bogus", "count=none", "nonsense", "max-affected=-1")
    assert parse_prefer(["return=headers-only, return=representation"]).return_ == "headers-only"  # the first one counts
    with pytest.raises(errors.ApiError) as exc:
        parse_prefer(["handling=strict, return=bogus", "count=nope"])
    assert (exc.value.status, exc.value.code, exc.value.message, exc.value.details) == (
        400, "PGRST122", "Invalid preferences given with handling=strict", "Invalid preferences: return=bogus, count=nope")
    assert parse_prefer(["handling=strict, return=minimal, timezone=UTC"]).return_ == "minimal"


def test_accept() -> None:
    for header, kind in (("*/*", "json"), ("application/*", "json"), ("text/unknowntype, */*", "json"),
                         ("text/csv, */*", "csv"), ("text/csv, application/json", "csv"), ("text/csv; version=1", "csv"),
                         ("application/json;q=0.5, text/csv", "csv"), ("text/plain", "text"), ("application/octet-stream", "octet"),
                         ("application/vnd.pgrst.object", "object"), ("", "json"), (None, "json")):
        assert parse_accept(header, False).kind == kind, header
    stripped = parse_accept("application/vnd.pgrst.object+json;nulls=stripped", False)
    assert (stripped.kind, stripped.nulls_stripped) == ("object", True)
    assert "nulls=stripped" in parse_accept("application/vnd.pgrst.array+json;nulls=stripped", False).content_type
    plan = parse_accept('application/vnd.pgrst.plan+text; for="application/json"; options=analyze|verbose|buffers', True)
    assert (plan.kind, plan.plan_format, plan.plan_options) == ("plan", "text", ("analyze", "verbose", "buffers"))
    assert parse_accept("application/vnd.pgrst.plan", True).plan_format == "text"  # as PostgREST's decodeMediaType
    with pytest.raises(errors.ApiError) as exc:
        parse_accept("text/unknowntype, image/png", False)
    assert (exc.value.status, exc.value.code, exc.value.message) == (
        406, "PGRST107", "None of these media types are available: text/unknowntype, image/png")


def test_range_header() -> None:
    assert parse_range("0-1") == (0, 2) and parse_range("items=5-") == (5, None) and parse_range("3-3") == (3, 1)
    for ignored in (None, "", "abc", "bytes=0-1", "-5", "1-2-3"):
        assert parse_range(ignored) is None, ignored
    with pytest.raises(errors.ApiError) as exc:
        parse_range("2-1")
    assert (exc.value.status, exc.value.code, exc.value.message, exc.value.details) == (
        416, "PGRST103", "Requested range not satisfiable",
        "The lower boundary must be lower than or equal to the upper boundary in the Range header.")
