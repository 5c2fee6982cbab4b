"""Auth mail templates as Supabase has them: GOTRUE_MAILER_SUBJECTS_<TYPE> and
GOTRUE_MAILER_TEMPLATES_<TYPE> (a URL, or here also a file), config.toml's
[auth.email.template.<type>] subject and content_path, the mail templates folder (the site's
French mails in learning/mail/), GoTrue's variables, and a bad template refused at start."""

from __future__ import annotations

import http.server
import os
import subprocess
import threading
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from server.auth import mail_templates
from server.auth.gotemplate import Template, TemplateError
from server.core.config import ConfigError
from server.provision.settings import load_settings
from tests import harness
from tests.auth.conftest import NEW_API, admin_headers_of, auth_api, auth_server, new_email

VARIABLES = ("<p>{{ .Email }} {{ .NewEmail }} {{ .Token }} {{ .TokenHash }} {{ .SiteURL }} {{ .RedirectTo }}"
             " {{ .Data.level }}{{ if .Data.vip }} vip{{ else }} plain{{ end }}</p>"
             '<a href="{{ .ConfirmationURL }}">go</a>')
DATA = {"Email": "a@example.com", "NewEmail": "", "Token": "123456", "TokenHash": "h", "SiteURL": "http://site",
        "RedirectTo": "", "ConfirmationURL": "http://api/verify?token=h&type=recovery", "Data": {}}


def _settings(tmp_path: Path, **env: str) -> Any:
    return load_settings({"SUPALITE_PROJECT_DIR": str(tmp_path), **env}, dotenv=None)


# -- the template language ---------------------------------------------------------------------

def test_go_template_fields_conditions_comments_and_trim_markers() -> None:
    template = Template('{{/* a comment */}}Hi {{ .Email }}{{- if .Data.vip }}, vip{{ else if eq .Data.level "2" }}'
                        ", level 2{{ else }}!{{ end -}}  \n{{ .Data.missing }}.")
    assert template.render({"Email": "a@b.c", "Data": {"vip": True}}) == "Hi a@b.c, vip."
    assert template.render({"Email": "a@b.c", "Data": {"level": 2}}) == "Hi a@b.c, level 2."
    assert template.render({"Email": "a@b.c", "Data": {}}) == "Hi a@b.c!."
    assert Template("{{ .Email }}").render({"Email": "<b>&"}) == "&lt;b&gt;&amp;"  # html/template escapes
    assert Template("{{ .Email }}").render({"Email": "<b>&"}, escape=False) == "<b>&"  # the subject does not


@pytest.mark.parametrize("source", ["{{ .Token ", "{{ range .Data }}x{{ end }}", "{{ if .X }}open", "{{ end }}",
                                    "{{ printf \"%s\" .Token }}", "{{ if .X }}a{{ else }}b{{ else }}c{{ end }}"])
def test_what_go_would_not_parse_or_supalite_does_not_render_is_refused(source: str) -> None:
    with pytest.raises(TemplateError):
        Template(source)


# -- where the templates come from ---------------------------------------------------------------

def test_nothing_set_is_gotrues_english_mails(tmp_path: Path) -> None:
    templates = mail_templates.load(_settings(tmp_path))  # no mail/ folder there
    subject, text, body = templates.render("recovery", DATA)
    assert subject == "Reset Your Password"
    assert body.startswith("<h2>Reset Password</h2>") and "Alternatively, enter the code: 123456" in body
    assert "Reset Password: http://api/verify?token=h&type=recovery" in text
    assert templates.render("signup", DATA)[0] == "Confirm Your Signup"
    assert templates.render("magiclink", DATA)[0] == "Your Magic Link"
    assert templates.render("reauthentication", DATA)[2].endswith("<p>Enter the code: 123456</p>")


def test_env_subject_and_file_template_with_gotrues_variables(tmp_path: Path) -> None:
    (tmp_path / "reset.html").write_text(VARIABLES)
    settings = _settings(tmp_path, GOTRUE_MAILER_SUBJECTS_RECOVERY="Réinitialisation pour {{ .Email }}",
                         GOTRUE_MAILER_TEMPLATES_RECOVERY="reset.html")  # relative: to the project dir
    data = {**DATA, "NewEmail": "n@example.com", "RedirectTo": "http://site/x?a=1&b=2", "Data": {"level": 3, "vip": 1}}
    subject, text, body = mail_templates.load(settings).render("recovery", data)
    assert subject == "Réinitialisation pour a@example.com"
    assert body == ("<p>a@example.com n@example.com 123456 h http://site http://site/x?a=1&amp;b=2 3 vip</p>"
                    '<a href="http://api/verify?token=h&amp;type=recovery">go</a>')
    assert text.startswith("a@example.com n@example.com 123456 h http://site http://site/x?a=1&b=2 3 vip")
    # the other types keep GoTrue's mails
    assert mail_templates.load(settings).render("signup", DATA)[0] == "Confirm Your Signup"


def test_a_template_url_is_fetched_as_gotrue_does(tmp_path: Path) -> None:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            payload = b"<p>From the web: {{ .Token }}</p>"
            self.send_response(200)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/magic.html"
        templates = mail_templates.load(_settings(tmp_path, GOTRUE_MAILER_TEMPLATES_MAGIC_LINK=url))
        assert templates.render("magiclink", DATA)[2] == "<p>From the web: 123456</p>" and not templates.warnings
    finally:
        server.shutdown()
    # a URL that does not answer: a warning, and GoTrue's default (GoTrue's fallback)
    templates = mail_templates.load(_settings(tmp_path, GOTRUE_MAILER_TEMPLATES_MAGIC_LINK=url))
    assert templates.render("magiclink", DATA)[0] == "Your Magic Link"
    assert templates.warnings and templates.warnings[0].startswith("GOTRUE_MAILER_TEMPLATES_MAGIC_LINK: cannot fetch")


def test_config_toml_templates_as_the_cli_reads_them(tmp_path: Path) -> None:
    (tmp_path / "supabase" / "templates").mkdir(parents=True)
    (tmp_path / "supabase" / "templates" / "invite.html").write_text("<p>Bienvenue {{ .Email }}</p>")
    # content_path is relative to the folder holding supabase/, as the CLI resolves it
    (tmp_path / "supabase" / "config.toml").write_text(
        'project_id = "x"\n[auth.email.template.invite]\nsubject = "Invitation"\n'
        'content_path = "./supabase/templates/invite.html"\n')
    settings = _settings(tmp_path)
    assert settings.mailer_subjects_invite == "Invitation"
    assert Path(settings.mailer_templates_invite) == tmp_path / "supabase" / "templates" / "invite.html"
    subject, _, body = mail_templates.load(settings).render("invite", DATA)
    assert (subject, body) == ("Invitation", "<p>Bienvenue a@example.com</p>")
    # the environment wins over config.toml
    assert _settings(tmp_path, GOTRUE_MAILER_SUBJECTS_INVITE="Venez").mailer_subjects_invite == "Venez"


def test_config_toml_content_path_must_exist(tmp_path: Path) -> None:
    (tmp_path / "supabase").mkdir()
    (tmp_path / "supabase" / "config.toml").write_text(
        'project_id = "x"\n[auth.email.template.recovery]\ncontent_path = "./supabase/templates/nope.html"\n')
    with pytest.raises(ConfigError, match=r"\[auth.email.template.recovery\] content_path: no such file"):
        _settings(tmp_path)


def test_a_missing_file_or_a_bad_template_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"GOTRUE_MAILER_TEMPLATES_RECOVERY: no such file .*nope\.html"):
        mail_templates.load(_settings(tmp_path, GOTRUE_MAILER_TEMPLATES_RECOVERY="nope.html"))
    (tmp_path / "bad.html").write_text("<p>{{ .Token </p>")
    with pytest.raises(ConfigError, match="GOTRUE_MAILER_TEMPLATES_RECOVERY: the template does not parse"):
        mail_templates.load(_settings(tmp_path, GOTRUE_MAILER_TEMPLATES_RECOVERY="bad.html"))
    with pytest.raises(ConfigError, match="GOTRUE_MAILER_SUBJECTS_INVITE: the template does not parse"):
        mail_templates.load(_settings(tmp_path, GOTRUE_MAILER_SUBJECTS_INVITE="{{ if .Email }}"))
    with pytest.raises(ConfigError, match="SUPALITE_MAIL_TEMPLATES_DIR: no such folder"):
        mail_templates.load(_settings(tmp_path, SUPALITE_MAIL_TEMPLATES_DIR="missing"))


def test_serve_refuses_a_missing_template_before_starting(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SUPALITE_", "GOTRUE_", "PGRST_"))}
    env.update({"SUPALITE_PROJECT_DIR": str(harness.APP), "SUPALITE_DATA_DIR": str(tmp_path / "data"),
                "GOTRUE_MAILER_TEMPLATES_RECOVERY": str(tmp_path / "nope.html")})
    done = subprocess.run([harness.SUPALITE, "serve", "--port", str(harness.free_port())], env=env,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 1
    assert done.stderr.strip() == f"supalite: error: GOTRUE_MAILER_TEMPLATES_RECOVERY: no such file {tmp_path}/nope.html"
    assert not (tmp_path / "data").exists()  # refused before the database started


# -- the site's French mails (learning/mail/) ------------------------------------------------------

def test_the_sites_mails_are_french_for_every_type() -> None:
    subjects = tomllib.loads((harness.APP / "mail" / "subjects.toml").read_text())
    assert set(subjects) == set(mail_templates.TYPES)
    templates = mail_templates.load(load_settings({"SUPALITE_PROJECT_DIR": str(harness.APP)}, dotenv=None))
    for kind, kind_type in mail_templates.KIND_TYPES.items():
        subject, text, body = templates.render(kind, {**DATA, "NewEmail": "n@example.com"})
        assert subject == subjects[kind_type] and "English Facile" in subject
        assert "vous" in text and "Follow this link" not in text, kind
        assert ("123456" in body) == (kind == "reauthentication"), kind  # the site has links, no code entry
        if kind != "reauthentication":
            assert 'href="http://api/verify?token=h&amp;type=recovery"' in body, kind
    assert "a@example.com" in templates.render("email_change", {**DATA, "NewEmail": "n@example.com"})[1]


# -- a live server ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[harness.LiveServer]:
    folder = harness.scratch_dir("supalite-mail-")
    (folder / "recovery.html").write_text(VARIABLES)
    with auth_server(database_url, {"GOTRUE_MAILER_TEMPLATES_RECOVERY": str(folder / "recovery.html"),
                                    "GOTRUE_MAILER_SUBJECTS_RECOVERY": "Nouveau mot de passe, {{ .Email }}",
                                    "GOTRUE_SITE_URL": "http://localhost:3000",
                                    "GOTRUE_URI_ALLOW_LIST": "http://localhost:3000/**"}) as server:
        yield server


def test_a_recovery_mail_renders_the_projects_template(server: harness.LiveServer) -> None:
    email = new_email("tpl")
    with auth_api(server) as api:
        created = api.post("/admin/users", json={"email": email, "password": "secret-pass", "email_confirm": True,
                                                 "user_metadata": {"level": "B1", "vip": True}},
                           headers={**admin_headers_of(server), **NEW_API})
        assert created.status_code == 200, created.text
        sent = api.post("/recover?redirect_to=http://localhost:3000/reset", json={"email": email})
        assert sent.status_code == 200, sent.text
    (mail,) = httpx.get(f"{server.url}/inbox/api/v1/messages", params={"email": email}).json()["messages"]
    full = httpx.get(f"{server.url}/inbox/api/v1/message/{mail['ID']}").json()
    token_hash = parse_qs(urlsplit(mail["Link"]).query)["token"][0]
    assert mail["Subject"] == f"Nouveau mot de passe, {email}"
    assert full["HTML"] == (f"<p>{email}  {mail['OTP']} {token_hash} http://localhost:3000 http://localhost:3000/reset"
                            f' B1 vip</p><a href="{mail["Link"].replace("&", "&amp;")}">go</a>')
