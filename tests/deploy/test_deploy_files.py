"""The deployment files say what the product needs: compose runs `make run`'s product settings
with every variable in .env.example, the replicas trust only the proxy, the image serves the
built web app, and nginx accepts and applies deploy/nginx.conf."""

from __future__ import annotations

import http.server
import ipaddress
import json
import re
import shlex
import threading
from collections.abc import Iterator
from pathlib import PurePosixPath
from typing import Any

import httpx
import pytest

from server.provision.embedded import free_port
from tests.deploy.compose import COMPOSE, COMPOSE_VARIABLE, compose, dotenv_values, service_environment
from tests.deploy.nginx import NGINX, nginx_test, running_nginx, site_conf, write_conf
from tests.harness import REPO, scratch_dir


def makefile_lines() -> list[str]:
    # Joined continuation lines: one make statement per entry.
    return (REPO / "Makefile").read_text().replace("\\\n", " ").splitlines()


def make_run_exports() -> dict[str, str]:
    """The `run: export NAME ?= value` lines of the Makefile."""
    exports = {}
    for line in makefile_lines():
        match = re.fullmatch(r"run: export ([A-Z0-9_]+) \?= (.*)", line.strip())
        if match:
            exports[match[1]] = match[2].strip()
    return exports


def compose_variables() -> dict[str, str | None]:
    """Every variable compose interpolates, with its default (None when required)."""
    found: dict[str, str | None] = {}
    for match in COMPOSE_VARIABLE.finditer(COMPOSE.read_text()):
        name, operator, value = match[1], match[2], match[3]
        default = None if operator and "?" in operator else (value or "")
        assert found.get(name, default) == default, f"{name} has two defaults in docker-compose.yml"
        found[name] = default
    return found


def env_example() -> dict[str, str]:
    """NAME=value lines of .env.example; each must follow its own comment."""
    entries = {}
    previous = ""
    for line in (REPO / ".env.example").read_text().splitlines():
        if line and not line.startswith("#"):
            name, sep, value = line.partition("=")
            assert sep and re.fullmatch(r"[A-Z0-9_]+", name), f".env.example: not NAME=value: {line!r}"
            assert previous.startswith("#"), f".env.example: {name} has no comment above it"
            assert name not in entries, f".env.example: {name} twice"
            entries[name] = value
        previous = line
    return entries


def test_compose_product_settings_are_make_runs() -> None:
    exports = make_run_exports()
    # The owner and contact settings, the device limit and the two session lifetimes.
    assert {"SUPALITE_APP_OWNER_EMAIL", "SUPALITE_AUTH_MAX_SESSIONS",
            "SUPALITE_AUTH_SESSIONS_TIMEBOX"} <= exports.keys()
    environment = compose()["services"]["api"]["environment"]
    for name, default in exports.items():
        assert environment.get(name) == f"${{{name}:-{default}}}", name


def test_env_example_lists_every_compose_variable_with_its_default() -> None:
    variables = compose_variables()
    example = env_example()
    assert example.keys() == variables.keys()
    for name, default in variables.items():
        # A required one is listed empty: compose refuses to start until it is set.
        assert example[name] == ("" if default is None else default), name
    assert variables["SUPALITE_JWT_SECRET"] is None


def test_replicas_pool_through_pgbouncer_and_keep_sessions_direct() -> None:
    from configparser import ConfigParser
    from urllib.parse import urlsplit

    services = compose()["services"]
    environment = service_environment("api", dotenv_values((REPO / ".env.example").read_text()) |
                                      {"SUPALITE_JWT_SECRET": "x" * 32})
    pooled, direct = urlsplit(environment["DATABASE_URL"]), urlsplit(environment["SUPALITE_DB_DIRECT_URL"])
    assert (pooled.hostname, pooled.port, direct.hostname, direct.port) == ("pgbouncer", 6432, "db", 5432)
    assert (pooled.username, pooled.password, pooled.path) == (direct.username, direct.password, direct.path)
    assert environment["PGRST_DB_PREPARED_STATEMENTS"] == "false"  # no named statements in transaction mode
    assert "./deploy/pgbouncer.ini:/etc/pgbouncer/pgbouncer.ini:ro" in services["pgbouncer"]["volumes"]
    ini = ConfigParser()
    ini.read_string((REPO / "deploy" / "pgbouncer.ini").read_text())
    bouncer = ini["pgbouncer"]
    assert bouncer["pool_mode"] == "transaction" and bouncer["listen_port"] == "6432"
    assert bouncer["auth_user"] == pooled.username  # the owner looks up every other role's secret
    assert ini["databases"]["*"] == "host=db port=5432"


def test_replicas_trust_only_the_proxy_for_forwarded_headers() -> None:
    data = compose()
    services = data["services"]
    proxy_address = services["proxy"]["networks"]["edge"]["ipv4_address"]
    trusted = services["api"]["environment"]["SUPALITE_FORWARDED_ALLOW_IPS"]
    # One address, the proxy's ("*" would let clients choose theirs: uvicorn then believes the
    # leftmost X-Forwarded-For entry, the one the client sent).
    assert trusted == proxy_address
    address = ipaddress.ip_address(trusted)
    (ipam,) = data["networks"]["edge"]["ipam"]["config"]
    assert address in ipaddress.ip_network(ipam["subnet"])
    # Addresses handed to other containers come from ip_range, which leaves the proxy's out.
    assert address not in ipaddress.ip_network(ipam["ip_range"])
    on_edge = {name for name, service in services.items() if "edge" in service.get("networks", ())}
    assert on_edge == {"api", "proxy"}
    assert "ports" not in services["api"]


def dockerfile_stages() -> list[list[tuple[str, str]]]:
    """The Dockerfile's instructions (keyword, arguments), one list per FROM."""
    stages: list[list[tuple[str, str]]] = []
    text = (REPO / "Dockerfile").read_text().replace("\\\n", " ")
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        keyword, _, arguments = line.partition(" ")
        if keyword.upper() == "FROM":
            stages.append([])
        stages[-1].append((keyword.upper(), arguments.strip()))
    return stages


def workdir(stage: list[tuple[str, str]], before: int) -> PurePosixPath:
    paths = [PurePosixPath(args) for keyword, args in stage[:before] if keyword == "WORKDIR"]
    return paths[-1] if paths else PurePosixPath("/")


def make_run_app() -> PurePosixPath:
    """The app folder `make run` serves (its `supalite serve --workdir`)."""
    (folder,) = [match[1] for line in makefile_lines() if (match := re.search(r"supalite serve --workdir (\S+)", line))]
    return PurePosixPath(folder)


def web_build_inputs() -> set[str]:
    """What `make web` builds from: the stamp's package files and WEB_SOURCES (files and folders)."""
    web = f"{make_run_app()}/web/"
    inputs: set[str] = set()
    for line in makefile_lines():
        if line.startswith("$(WEB_STAMP):") or line.startswith("WEB_SOURCES :="):
            inputs |= {word for word in re.split(r"[\s)]+", line) if word.startswith(web)}
    return inputs


def test_dockerfile_builds_the_web_app_and_copies_it_where_the_server_serves_it() -> None:
    stages = dockerfile_stages()
    web_stage = next(stage for stage in stages
                     if any(keyword == "RUN" and "npm run build" in args for keyword, args in stage))
    name = web_stage[0][1].split()[-1]
    assert re.search(r"\bAS\b", web_stage[0][1], re.I), "the web build stage needs a name"
    runs = [args for keyword, args in web_stage if keyword == "RUN"]
    assert any("npm ci" in args for args in runs)
    build_at = next(i for i, (keyword, args) in enumerate(web_stage) if keyword == "RUN" and "npm run build" in args)

    # Every input of `make web` is in the build stage before the build runs.
    copied: set[str] = set()
    for keyword, args in web_stage[:build_at]:
        if keyword == "COPY":
            copied |= set(shlex.split(args)[:-1])
    inputs = web_build_inputs()
    assert {"learning/web/src", "learning/web/package-lock.json", "learning/web/index.html"} <= inputs
    assert inputs <= copied, inputs - copied

    # The final image holds the stage's dist in $SUPALITE_PROJECT_DIR/<WEB_BUILD's folder in the app>.
    final = stages[-1]
    env = " ".join(args for keyword, args in final if keyword == "ENV")
    project_dir = PurePosixPath(dict(item.split("=", 1) for item in shlex.split(env))["SUPALITE_PROJECT_DIR"])
    (web_build,) = [line.split(":=", 1)[1].strip() for line in makefile_lines() if line.startswith("WEB_BUILD :=")]
    served = project_dir / PurePosixPath(web_build).relative_to(make_run_app()).parent
    copies = [(i, shlex.split(args)) for i, (keyword, args) in enumerate(final) if keyword == "COPY"]
    dist_copies = [(i, words) for i, words in copies if words[0] == f"--from={name}"]
    assert len(dist_copies) == 1
    i, words = dist_copies[0]
    source, destination = PurePosixPath(words[1]), PurePosixPath(words[2])
    assert source == workdir(web_stage, build_at) / "dist"
    assert workdir(final, i) / destination == served


def test_dockerfile_copies_the_app_into_its_project_dir() -> None:
    """What supalite reads from the app at start lands in $SUPALITE_PROJECT_DIR, as in the repository."""
    final = dockerfile_stages()[-1]
    env = " ".join(args for keyword, args in final if keyword == "ENV")
    project_dir = PurePosixPath(dict(item.split("=", 1) for item in shlex.split(env))["SUPALITE_PROJECT_DIR"])
    app = make_run_app()
    copied: dict[PurePosixPath, PurePosixPath] = {}
    for i, (keyword, args) in enumerate(final):
        words = shlex.split(args)
        if keyword == "COPY" and PurePosixPath(words[0]).is_relative_to(app):
            source = PurePosixPath(words[0]).relative_to(app)
            target = workdir(final, i) / words[1]
            # A destination ending in / is a folder the file goes into.
            copied[source] = target / source.name if words[1].endswith("/") else target
    assert {PurePosixPath(name) for name in ("migrations", "policies", "storage", "mail")} <= copied.keys()
    for source, destination in copied.items():
        assert destination == project_dir / source, source


def test_nginx_accepts_the_deploy_configuration() -> None:
    if not NGINX.exists():
        pytest.skip("nginx is not installed (make test installs it)")
    prefix = scratch_dir("supalite-nginx-")
    # As written (compose's names): nginx -t resolves nothing through the resolver.
    checked = nginx_test(write_conf(prefix, (REPO / "deploy" / "nginx.conf").read_text()))
    assert checked.returncode == 0, checked.stderr
    assert "test is successful" in checked.stderr


def test_nginx_finds_replicas_that_come_and_go() -> None:
    text = (REPO / "deploy" / "nginx.conf").read_text()
    # A literal `proxy_pass http://api:8000` (or an upstream block) is resolved once, at start;
    # a variable is resolved through the resolver, Docker's DNS, again every 10 s.
    assert re.findall(r"^\s*proxy_pass (\S+);", text, re.M) == ["http://$api"]
    assert re.findall(r"^\s*resolver (.*);", text, re.M) == ["127.0.0.11 valid=10s ipv6=off"]
    assert "upstream" not in re.sub(r"#.*", "", text)


class _EchoHeaders(http.server.BaseHTTPRequestHandler):
    """Answers every GET with the request's headers as JSON (names lowercased)."""

    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        body = json.dumps({k.lower(): v for k, v in self.headers.items()} | {"path": self.path}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def proxy() -> Iterator[str]:
    """deploy/nginx.conf in front of a server echoing the headers it receives; nginx's URL."""
    if not NGINX.exists():
        pytest.skip("nginx is not installed (make test installs it)")
    upstream = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _EchoHeaders)
    thread = threading.Thread(target=upstream.serve_forever, daemon=True)
    thread.start()
    port = free_port()
    prefix = scratch_dir("supalite-nginx-")
    conf = write_conf(prefix, site_conf(f"127.0.0.1:{port}", f"127.0.0.1:{upstream.server_address[1]}"))
    try:
        with running_nginx(conf, port):
            yield f"http://127.0.0.1:{port}"
    finally:
        upstream.shutdown()
        upstream.server_close()


def test_nginx_upgrades_only_websocket_requests(proxy: str) -> None:
    plain = httpx.get(f"{proxy}/rest/v1/lessons?select=id", headers={"Connection": "keep-alive"}).json()
    assert plain["connection"] == "close"
    assert "upgrade" not in plain
    assert plain["path"] == "/rest/v1/lessons?select=id"
    websocket = httpx.get(f"{proxy}/realtime/v1/websocket",
                          headers={"Connection": "Upgrade", "Upgrade": "websocket"}).json()
    assert websocket["connection"] == "upgrade"
    assert websocket["upgrade"] == "websocket"


def test_nginx_forwards_the_client_scheme_and_host(proxy: str) -> None:
    seen = httpx.get(f"{proxy}/auth/v1/health", headers={"X-Forwarded-For": "203.0.113.9"}).json()
    # The proxy appends the peer it saw: the replicas, trusting it alone, take that last entry.
    assert seen["x-forwarded-for"] == "203.0.113.9, 127.0.0.1"
    assert seen["x-forwarded-proto"] == "http"
    assert seen["x-forwarded-host"] == proxy.removeprefix("http://")
