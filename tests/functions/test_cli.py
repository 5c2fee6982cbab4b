"""`supalite functions new` and `supalite functions serve`."""

from __future__ import annotations

import subprocess
from pathlib import Path

import httpx

from tests import harness


def supalite(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([harness.SUPALITE, *args], cwd=cwd, capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "SUPALITE_PROJECT_DIR": str(cwd)})


def test_functions_new_writes_the_template(tmp_path: Path) -> None:
    done = supalite("functions", "new", "hello-world", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "supabase" / "functions" / "hello-world"
    assert done.stdout.strip() == f"Created new Function at {folder}"
    text = (folder / "index.ts").read_text()
    assert "Deno.serve(async (req) => {" in text and "message: `Hello ${name}!`" in text
    assert "http://127.0.0.1:8000/functions/v1/hello-world" in text
    assert (folder / "deno.json").read_text() == '{\n  "imports": {}\n}\n'

    again = supalite("functions", "new", "hello-world", cwd=tmp_path)
    assert (again.returncode, again.stderr.strip()) == (1, f"supalite: error: {folder} already exists")
    for bad in ("9lives", "has space", "../up", "_shared"):
        refused = supalite("functions", "new", bad, cwd=tmp_path)
        assert refused.returncode == 1 and "invalid function name" in refused.stderr, bad
    assert sorted(p.name for p in (tmp_path / "supabase" / "functions").iterdir()) == ["hello-world"]


def test_functions_serve_takes_an_env_file_and_no_verify_jwt(database_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "supabase" / "functions" / "whoami"
    folder.mkdir(parents=True)
    (folder / "index.ts").write_text(
        'Deno.serve(() => Response.json({ secret: Deno.env.get("MY_SECRET"), url: Deno.env.get("SUPABASE_URL") }));')
    env_file = tmp_path / "functions.env"
    env_file.write_text("MY_SECRET=from-the-env-file\nSUPABASE_URL=http://not-this\n")
    server = harness.start_server(database_url, command=("functions", "serve"),
                                  args=["--no-migrate", "--no-verify-jwt", "--env-file", str(env_file)],
                                  extra_env={"SUPALITE_FUNCTIONS_DIR": str(folder.parent)})
    try:
        r = httpx.get(server.url + "/functions/v1/whoami", timeout=60)  # no Authorization at all
        assert r.status_code == 200, r.text
        assert r.json() == {"secret": "from-the-env-file", "url": server.url}
        assert "Serving functions on" in server.log()
    finally:
        server.stop()
