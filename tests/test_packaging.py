"""A plain (non-editable) install ships the templates and static files and serves pages."""
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


def test_wheel_contains_templates_and_static_and_serves_from_them(tmp_path):
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
                           check=True, capture_output=True, text=True)
    assert "BuildBackendWarning" not in built.stderr, built.stderr  # every folder shipped is a listed package
    wheel = next(tmp_path.glob("table_referee-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    languages = [p.relative_to(ROOT / "companion").as_posix()
                 for p in (ROOT / "companion" / "translations").glob("*/LC_MESSAGES/messages.mo")]
    assert len(languages) >= 5
    for path in ["companion/templates/_board.html", "companion/templates/base.html", "companion/static/app.css",
                 "companion/static/app.js", "companion/static/vendor/htmx-2.0.11.min.js",
                 "companion/static/vendor/LICENSE-htmx.txt", "companion/static/vendor/idiomorph-ext-0.8.0.min.js",
                 "card_db/data/munchkin-base.json", *(f"companion/{mo}" for mo in languages)]:
        assert path in names, path
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
                   check=True)
    script = (
        "import companion, sys\n"
        f"assert companion.__file__.startswith({str(target)!r}), companion.__file__\n"
        f"app = companion.create_app({{'DATA_DIR': {str(tmp_path / 'data')!r}}})\n"
        "c = app.test_client()\n"
        "assert c.get('/').status_code == 200\n"
        "assert c.get('/static/vendor/htmx-ext-sse-2.2.4.min.js').status_code == 200\n"
        "assert c.get('/api/v1/cards?q=wutend').json['cards'][0]['id'] == 'enraged'\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", script], env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
                            capture_output=True, text=True, cwd=tmp_path)
    assert result.stdout.strip() == "ok", result.stderr


def _serve_once(tmp_path, extra_env: dict) -> str:
    """Run ./scripts/serve until it says it is open, with no package index reachable; its output."""
    from liveserver import free_port

    port = free_port()
    env = {**__import__("os").environ, "PIP_INDEX_URL": "http://127.0.0.1:9/simple", "PIP_NO_INDEX": "1",
           "PIP_FIND_LINKS": "", **extra_env}
    proc = subprocess.Popen([str(ROOT / "scripts" / "serve"), "--host", "127.0.0.1", "--port", str(port), "--no-qr",
                             "--data-dir", str(tmp_path / "data")], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines = []
    try:
        for line in proc.stdout:
            lines.append(line)
            if "Table Referee is open at" in line:  # printed just before the server binds
                import time
                import urllib.request
                for _ in range(600):
                    try:
                        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/health", timeout=60) as answer:
                            assert answer.status == 200
                            break
                    except OSError:
                        time.sleep(0.05)
                else:
                    raise AssertionError("scripts/serve printed its URL but never answered")
                break
    finally:
        __import__("os").killpg(proc.pid, 9)
        proc.wait(timeout=20)
    return "".join(lines)


def test_scripts_serve_starts_the_installed_app_without_a_package_index(tmp_path):
    """A game night without internet still starts (#17): no install when nothing changed, and
    when an install is asked for but no index answers, the installed app starts anyway."""
    output = _serve_once(tmp_path, {})
    assert "Table Referee is open at" in output
    forced = _serve_once(tmp_path, {"COMPANION_INSTALL": "1"})
    assert "starting the installed app" in forced and "Table Referee is open at" in forced
