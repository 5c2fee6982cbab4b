"""A Supabase project folder run as with the Supabase CLI: a copy of it started by `supalite start
--workdir D`, and what `status -o env` printed, for the tests of tests/provision/supabase_project."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from server.provision.embedded import free_port
from tests import harness

# godotenv.Marshal's lines, as `supabase status -o env` prints them: KEY="escaped value" or KEY=integer.
_ENV_LINE = re.compile(r'^([A-Za-z_][A-Za-z0-9_]*)=(?:"((?:[^"\\]|\\.)*)"|(-?\d+))$')


@dataclass
class Project:
    """A copy of the sample, started by `supalite start`, and what `status -o env` printed."""

    workdir: Path
    env: dict[str, str]  # the environment every supalite command of the test runs with
    status: dict[str, str] = field(default_factory=dict)

    def supalite(self, *args: str, timeout: float = 120, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run([harness.SUPALITE, *args, "--workdir", str(self.workdir)], env=self.env,
                              cwd=str(self.workdir.parent), capture_output=True, text=True, timeout=timeout,
                              input=stdin, check=False)

    def ok(self, *args: str, timeout: float = 120, stdin: str = "") -> str:
        done = self.supalite(*args, timeout=timeout, stdin=stdin)
        assert done.returncode == 0, f"supalite {' '.join(args)}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
        assert "Traceback" not in done.stderr, done.stderr
        return done.stdout

    # What tests/js/node_suite.py reads of a harness.LiveServer, taken from `status -o env`.
    @property
    def url(self) -> str:
        return self.status["API_URL"]

    @property
    def anon_key(self) -> str:
        return self.status["ANON_KEY"]

    @property
    def service_key(self) -> str:
        return self.status["SERVICE_ROLE_KEY"]

    @property
    def database_url(self) -> str:
        return self.status["DB_URL"]


def parse_env_output(text: str) -> dict[str, str]:
    """`status -o env` output as a dict; every non-empty line must be KEY="value" (or KEY=123)."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        match = _ENV_LINE.match(line)
        assert match, f"not a KEY=\"value\" line: {line!r}"
        name, quoted, number = match.groups()
        values[name] = number if number is not None else re.sub(r"\\(.)", _unescape, quoted)
    return values


def _unescape(match: re.Match[str]) -> str:
    return {"n": "\n", "r": "\r"}.get(match[1], match[1])


def clean_environment() -> dict[str, str]:
    """The caller's environment without the server's own settings (the project's config.toml decides)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SUPALITE_", "PGRST_", "GOTRUE_", "STORAGE_"))}
    env.pop("DATABASE_URL", None)
    return env


@contextmanager
def started_project(folder: Path, name: str, extra_env: dict[str, str] | None = None,
                    prepare: object = None) -> Iterator[tuple[Project, subprocess.CompletedProcess[str]]]:
    """A copy of the project `folder` (holding supabase/) started by `supalite start` on free ports,
    with `status -o env` read; stopped and removed afterwards. `prepare(workdir)` runs before the start."""
    scratch = harness.scratch_dir(f"supalite-{name}-")
    workdir = scratch / name
    shutil.copytree(folder, workdir)
    if callable(prepare):
        prepare(workdir)
    # The environment wins over config.toml's [api] port and [db] port (54321/54322 may be in use).
    env = clean_environment() | {"SUPALITE_PORT": str(free_port()), "SUPALITE_DB_PORT": str(free_port()),
                                 "SUPALITE_LOG_LEVEL": "warning"} | (extra_env or {})
    started = Project(workdir, env)
    try:
        start = started.supalite("start", timeout=180)
        assert start.returncode == 0, start.stdout + start.stderr
        started.status = parse_env_output(started.ok("status", "-o", "env"))
        yield started, start
    finally:
        stopped = started.supalite("stop", "--no-backup")
        print(stopped.stdout, stopped.stderr)
        shutil.rmtree(scratch, ignore_errors=True)
