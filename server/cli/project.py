"""`supalite start`, `stop`, `status`, `db reset`, `migration new/list`: the Supabase CLI's
commands on a project folder (server/provision/supabase_project does the work)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from datetime import UTC, datetime

import psycopg

from server.core.config import ConfigError, Settings
from server.provision.embedded import check_port_free
from server.provision.supabase_project import status
from server.provision.supabase_project.config_toml import read_project_config
from server.provision.supabase_project.layout import SupabaseProject, require_project
from server.provision.supabase_project.migrations import (
    applied_versions,
    local_migrations,
    migration_file_name,
    migration_rows,
    render_table,
    say,
)
from server.provision.supabase_project.process import (
    STOP_TIMEOUT,
    abandon,
    delete_data,
    kill_session,
    pid_path,
    print_warnings,
    running_pid,
    spawn,
    wait_cluster_stopped,
    wait_gone,
    wait_healthy,
)
from server.provision.supabase_project.reset import (
    check_reset_allowed,
    git_branch,
    recreate_database,
    remove_stored_objects,
    wait_for_schema_cache,
)
from server.provision.supabase_project.status import parse_overrides, print_status


def _say_build(settings: Settings, project: SupabaseProject) -> None:
    """Which PostgreSQL runs the project when it is not [db] major_version (the server's own
    line goes to its log); a missing extension stops here, before anything starts."""
    from server.provision.supabase_project.postgres import choice_lines, choose_build

    config = read_project_config(project)
    for line in choice_lines(project, config, choose_build(project, config, settings.data_dir)):
        print(line, file=sys.stderr, flush=True)


def cmd_start(settings: Settings, args: argparse.Namespace) -> int:
    project = require_project(settings.project_dir, "start")
    print_warnings(settings)
    if status.is_running(settings):
        print("supalite start is already running.", file=sys.stderr)
        return status.print_status(settings, "pretty", {})
    # Another project's server on the template's port would answer the /health start waits for.
    check_port_free(settings.host, settings.port)
    if not settings.database_url:
        _say_build(settings, project)
    process = spawn(settings, project)
    try:
        wait_healthy(settings, process)
    except BaseException:
        abandon(settings, process)  # also at Ctrl-C while waiting: the child is in its own session
        raise
    print("Started supalite local development setup.\n", file=sys.stderr, flush=True)
    status.print_block(status.status_values(settings))
    return 0


def cmd_stop(settings: Settings, args: argparse.Namespace) -> int:
    no_backup = bool(getattr(args, "no_backup", False))
    pid = running_pid(settings)
    if pid is None:
        if status.is_running(settings):
            raise ConfigError(f"the server on {settings.data_dir} was not started by `supalite start` "
                              "(a `supalite serve`?): stop it where it runs")
        print("supalite local development setup is not running.")
        if no_backup:
            delete_data(settings)
        return 0
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass  # it has just exited
    if not wait_gone(pid, settings.data_dir, STOP_TIMEOUT):
        kill_session(pid)
        wait_gone(pid, settings.data_dir, 5.0)
    wait_cluster_stopped(settings)
    pid_path(settings).unlink(missing_ok=True)
    print("Stopped supalite local development setup.")
    if no_backup:
        delete_data(settings)
    elif settings.data_dir.exists() and not settings.database_url:
        print(f"Local data are kept in {settings.data_dir}: `supalite stop --no-backup` deletes them.",
              file=sys.stderr)
    return 0


def cmd_status(settings: Settings, args: argparse.Namespace) -> int:
    renames = parse_overrides(list(getattr(args, "override_name", []) or []))
    return print_status(settings, getattr(args, "output", "pretty"), renames)


def cmd_db_reset(settings: Settings, args: argparse.Namespace) -> int:
    from server.provision.database import command_database
    from server.provision.project import migrate

    project = require_project(settings.project_dir, "db reset")
    check_reset_allowed(settings)
    read_project_config(project)  # a broken config.toml stops here, before anything is dropped
    with command_database(settings) as owner_url:
        say("Resetting local database...")
        keys = recreate_database(owner_url)
        remove_stored_objects(settings, keys)
        migrate(settings, owner_url, seed=not getattr(args, "no_seed", False), roles=False)
        wait_for_schema_cache(settings, owner_url)
    say(f"Finished supalite db reset on branch {git_branch(project.root)}.")
    return 0


def cmd_migration_new(settings: Settings, args: argparse.Namespace) -> int:
    project = require_project(settings.project_dir, "migration new")
    file_name = migration_file_name(args.name, datetime.now(UTC))
    path = project.migrations_dir / file_name
    try:
        project.migrations_dir.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as out:
            # Piped text becomes the migration (`supabase db diff | supabase migration new x`).
            if not sys.stdin.isatty():
                while chunk := sys.stdin.buffer.read(1 << 16):
                    out.write(chunk)
    except OSError as exc:
        raise ConfigError(f"cannot write {project.relative(path)}: {exc.strerror}") from None
    print(f"Created new migration at {project.relative(path)}.")
    return 0


def cmd_migration_list(settings: Settings, args: argparse.Namespace) -> int:
    from server.provision.database import command_database

    project = require_project(settings.project_dir, "migration list")
    local = [m.version for m in local_migrations(project)]
    say("Connecting to local database...")
    with command_database(settings) as owner_url, psycopg.connect(owner_url) as conn:
        remote = applied_versions(conn)
    sys.stdout.write(render_table(migration_rows(local, remote)))
    return 0
