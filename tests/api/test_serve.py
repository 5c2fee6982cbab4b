"""`supalite serve`: health, refusals with one clear line, and no stray postgres."""

from __future__ import annotations

import os
import signal
import socket
import subprocess

import httpx
import psutil
import pytest

from tests import harness


def test_health_endpoints(live_server: harness.LiveServer) -> None:
    health = httpx.get(f"{live_server.url}/health").json()
    assert health["status"] == "ok" and health["database"]["status"] == "up"
    assert set(health["services"].values()) == {"up"}
    auth = httpx.get(f"{live_server.url}/auth/v1/health").json()
    assert auth["name"] == "GoTrue"
    assert httpx.get(f"{live_server.url}/storage/v1/status").status_code == 200


def test_runtime_config_for_the_web_app(live_server: harness.LiveServer) -> None:
    body = httpx.get(f"{live_server.url}/config.js").text
    assert live_server.anon_key in body and live_server.url in body


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("SUPALITE_")}
    base.pop("DATABASE_URL", None)
    base.update(env or {})
    return subprocess.run([harness.SUPALITE, *args], env=base, capture_output=True, text=True, timeout=timeout,
                          cwd=str(harness.REPO), stdin=subprocess.DEVNULL)


def assert_one_line_error(result: subprocess.CompletedProcess[str], fragment: str) -> None:
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("supalite: error: ") and fragment in lines[0], lines[0]


def test_demo_secret_on_all_interfaces_is_refused_without_dev() -> None:
    result = run_cli("serve", "--host", "0.0.0.0", "--port", str(harness.free_port()))
    assert_one_line_error(result, "demo JWT secret")


def test_unreachable_database_url() -> None:
    port = harness.free_port()
    result = run_cli("serve", "--port", str(harness.free_port()),
                     env={"DATABASE_URL": f"postgresql://postgres:x@127.0.0.1:{port}/postgres"})
    assert_one_line_error(result, f"cannot reach the database at 127.0.0.1:{port}/postgres")


def test_unreachable_direct_url(database_url: str) -> None:
    """LISTEN and migrations go to SUPALITE_DB_DIRECT_URL: unreachable, one line at start, not a
    migration's traceback (nor, without migrations, a realtime that never listens)."""
    port = harness.free_port()
    result = run_cli("serve", "--port", str(harness.free_port()),
                     env={"DATABASE_URL": database_url,
                          "SUPALITE_DB_DIRECT_URL": f"postgresql://postgres:x@127.0.0.1:{port}/postgres"})
    assert_one_line_error(result, f"cannot reach the database at 127.0.0.1:{port}/postgres")


def test_direct_url_without_database_url() -> None:
    """Else the embedded PostgreSQL would be served while migrations and LISTEN went elsewhere."""
    result = run_cli("serve", "--port", str(harness.free_port()),
                     env={"SUPALITE_DB_DIRECT_URL": f"postgresql://postgres:x@127.0.0.1:{harness.free_port()}/postgres"})
    assert_one_line_error(result, "SUPALITE_DB_DIRECT_URL needs DATABASE_URL")


def test_port_in_use(database_url: str) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run_cli("serve", "--port", str(port), env={"DATABASE_URL": database_url})
    assert_one_line_error(result, f"cannot listen on 127.0.0.1:{port}")


def test_unwritable_data_dir(tmp_path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = run_cli("serve", "--port", str(harness.free_port()), "--data-dir", str(blocker / "data"))
    assert_one_line_error(result, "is not writable")


def test_unknown_setting() -> None:
    result = run_cli("serve", env={"SUPALITE_WORKRES": "2"})
    assert_one_line_error(result, "unknown setting SUPALITE_WORKRES")


def postgres_children(pid: int) -> list[psutil.Process]:
    try:
        return [p for p in psutil.Process(pid).children(recursive=True) if p.name() == "postgres"]
    except psutil.NoSuchProcess:
        return []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_stopping_the_server_leaves_no_postgres(sig: signal.Signals) -> None:
    data_dir = harness.scratch_dir("supalite-serve-") / "data"
    server = harness.start_server(None, data_dir=data_dir, extra_env={"SUPALITE_DB_PORT": "0"})
    postmasters = postgres_children(server.process.pid)
    assert postmasters, "embedded postgres should run as a child of the server"
    server.process.send_signal(sig)
    server.process.wait(30)
    _gone, alive = psutil.wait_procs(postmasters, timeout=20)
    assert not alive, f"postgres still running after {sig.name}"


def test_warm_restart_reuses_the_data_dir() -> None:
    data_dir = harness.scratch_dir("supalite-warm-") / "data"
    env = {"SUPALITE_DB_PORT": "0"}
    first = harness.start_server(None, data_dir=data_dir, extra_env=env)
    first.stop()
    second = harness.start_server(None, data_dir=data_dir, extra_env=env)
    try:
        assert httpx.get(f"{second.url}/health").status_code == 200
    finally:
        second.stop()
    assert (data_dir / "postgres" / "PG_VERSION").exists()


def test_db_url_and_keys_commands(tmp_path) -> None:
    data_dir = harness.scratch_dir("supalite-cli-") / "data"
    server = harness.start_server(None, data_dir=data_dir, extra_env={"SUPALITE_DB_PORT": "0"})
    try:
        url = run_cli("--data-dir", str(data_dir), "db", "url").stdout.strip()
        assert url.startswith("postgresql://postgres:")
        out = run_cli("--data-dir", str(data_dir), "psql", "-tAc", "select current_user").stdout.strip()
        assert out == "postgres"
        keys = run_cli("keys").stdout
        assert "anon key: eyJ" in keys and "service_role key: eyJ" in keys
    finally:
        server.stop()
    assert "not running" in run_cli("--data-dir", str(data_dir), "db", "url").stderr
