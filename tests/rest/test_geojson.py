"""GeoJSON as PostgREST 12 builds it (Query/SqlFragment.hs): `Accept: application/geo+json`
answers a FeatureCollection of ST_AsGeoJSON for relations with a PostGIS geometry, on reads
and on written rows. Fixture: fixture_writes.sql (its PostGIS part)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import psycopg
import pytest

from server.provision.embedded import EmbeddedPostgres
from tests import harness
from tests.rest.conftest import Api

PG15 = Path("/usr/lib/postgresql/15/bin")
POSTGIS = Path("/usr/share/postgresql/15/extension/postgis.control")
GEOJSON = {"Accept": "application/geo+json"}


@pytest.fixture(scope="module")
def owner_url() -> Iterator[str]:
    """This module's REST fixture database lives on Debian's PostgreSQL 15, which has PostGIS
    (`make test` installs postgresql-15-postgis-3); the embedded build has no PostGIS."""
    if not (PG15 / "postgres").exists() or not POSTGIS.exists():
        pytest.skip("Debian's postgresql-15 and postgresql-15-postgis-3 are needed (make test installs them)")
    pg = EmbeddedPostgres(harness.scratch_dir("supalite-pg15-") / "data", port=0, fast_unsafe=True, binaries=PG15)
    try:
        yield pg.start()
    finally:
        pg.stop()


@pytest.fixture(scope="module")
def postgis(rest_database: str) -> None:
    with psycopg.connect(rest_database) as conn:
        assert conn.execute("select to_regclass('public.fx_w_shops')").fetchone() != (None,), "PostGIS fixture not loaded"


def _feature(id_: int, address: str, lon: float, lat: float) -> dict[str, Any]:
    return {"type": "Feature", "geometry": {"type": "Point", "coordinates": [lon, lat]},
            "properties": {"id": id_, "address": address}}


SHOP_1 = _feature(1, "1369 Cambridge St", -71.10044, 42.373695)
SHOP_2 = _feature(2, "757 Massachusetts Ave", -71.10543, 42.366432)


class GeoCase(NamedTuple):
    name: str
    method: str
    path: str
    body: Any
    status: int
    answer: Any


GEO_CASES = [
    GeoCase("a table with a geometry column", "GET", "/fx_w_shops?order=id", None, 200,
            {"type": "FeatureCollection", "features": [SHOP_1, SHOP_2]}),
    GeoCase("no rows: no features", "GET", "/fx_w_shops?id=gt.10", None, 200, {"type": "FeatureCollection", "features": []}),
    GeoCase("the geometry chosen by select", "GET", "/fx_w_shops?select=id,shop_geom&id=eq.1", None, 200,
            {"type": "FeatureCollection", "features": [{**SHOP_1, "properties": {"id": 1}}]}),
    GeoCase("written rows", "PATCH", "/fx_w_shops?id=eq.2", {"address": "new"}, 200,
            {"type": "FeatureCollection", "features": [_feature(2, "new", -71.10543, 42.366432)]}),
    GeoCase("a table without geometry: PostGIS's error", "GET", "/fx_w_langs", None, 400,
            {"code": "22023", "details": None, "hint": None, "message": "geometry column is missing"}),
]


@pytest.mark.parametrize("case", GEO_CASES, ids=[c.name for c in GEO_CASES])
def test_geojson(postgis: None, service: Api, case: GeoCase) -> None:
    headers = {**GEOJSON, "Prefer": "return=representation,tx=rollback"}
    r = service.request(case.method, case.path, headers=headers, json=case.body)
    assert r.status_code == case.status, r.text
    assert r.json() == case.answer
    if case.status == 200:
        assert r.headers["content-type"] == "application/geo+json; charset=utf-8"


def test_geometry_in_json_is_a_geojson_object(postgis: None, anon: Api) -> None:
    r = anon.get("/fx_w_shops?select=shop_geom&id=eq.1")
    assert r.json() == [{"shop_geom": {"type": "Point", "crs": {"type": "name", "properties": {"name": "EPSG:4326"}},
                                       "coordinates": [-71.10044, 42.373695]}}]


