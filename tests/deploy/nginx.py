"""Debian's nginx running deploy/nginx.conf (the file compose mounts), templated only for where
it listens and where the replicas are: for tests of the proxy and of the production topology."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.harness import REPO, stop_process, wait_listening

NGINX = Path("/usr/sbin/nginx")
SITE_CONF = REPO / "deploy" / "nginx.conf"

# The lines a harness may change; anything else is served as written.
LISTEN = re.compile(r"^(\s*)listen 80;$", re.M)
API = re.compile(r"^(\s*)set \$api api:8000;$", re.M)
RESOLVER = re.compile(r"^(\s*)resolver 127\.0\.0\.11 (.*)$", re.M)


def site_conf(listen: str, api: str, resolver: str = "127.0.0.1") -> str:
    """deploy/nginx.conf listening on `listen` (host:port), proxying to `api` (host:port, or
    the name of an upstream block), asking `resolver` for names."""
    text = SITE_CONF.read_text()
    for pattern, value in ((LISTEN, f"listen {listen};"), (API, f"set $api {api};"),
                           (RESOLVER, f"resolver {resolver} \\2")):
        text, count = pattern.subn(lambda m, v=value: m.expand(r"\1" + v), text)
        if count != 1:
            raise AssertionError(f"deploy/nginx.conf: expected one line matching {pattern.pattern}")
    return text


def write_conf(prefix: Path, site: str, http_extra: str = "", access_log: str = "off") -> Path:
    """A whole nginx.conf under `prefix` (pid, logs, temp files there) including `site` inside
    its http block, as the nginx image's own nginx.conf includes conf.d. `http_extra` goes in
    the http block; `access_log` is that directive's value there."""
    (prefix / "site.conf").write_text(site)
    conf = prefix / "nginx.conf"
    conf.write_text(
        f"worker_processes 1;\npid {prefix}/nginx.pid;\nerror_log {prefix}/error.log;\n"
        "events {}\n"
        "http {\n"
        f"  client_body_temp_path {prefix}/body;\n"
        f"  proxy_temp_path {prefix}/proxy;\n  fastcgi_temp_path {prefix}/fastcgi;\n"
        f"  uwsgi_temp_path {prefix}/uwsgi;\n  scgi_temp_path {prefix}/scgi;\n"
        f"{http_extra}"
        f"  access_log {access_log};\n"  # after http_extra, which may define its format
        f"  include {prefix}/site.conf;\n"
        "}\n")
    return conf


def nginx_test(conf: Path) -> subprocess.CompletedProcess[str]:
    """`nginx -t`: parses the configuration and checks it, binds nothing."""
    return subprocess.run([str(NGINX), "-t", "-p", str(conf.parent), "-e", str(conf.parent / "error.log"),
                           "-c", str(conf)], capture_output=True, text=True, timeout=30)


@contextmanager
def running_nginx(conf: Path, port: int) -> Iterator[subprocess.Popen[str]]:
    """nginx in the foreground with `conf`, until it accepts on 127.0.0.1:`port`; stopped after."""
    proc = subprocess.Popen([str(NGINX), "-p", str(conf.parent), "-e", str(conf.parent / "error.log"),
                             "-c", str(conf), "-g", "daemon off;"], text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        try:
            wait_listening(port, proc, "nginx")
        except RuntimeError as exc:
            raise RuntimeError(f"{exc}: {proc.stderr.read() if proc.stderr and proc.poll() is not None else ''}") from None
        yield proc
    finally:
        stop_process(proc)
