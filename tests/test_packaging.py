"""A plain (non-editable) install ships the templates and static files and serves pages."""
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


def test_wheel_contains_templates_and_static_and_serves_from_them(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
                   check=True)
    wheel = next(tmp_path.glob("table_referee-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    for path in ["companion/templates/_board.html", "companion/templates/base.html", "companion/static/app.css",
                 "companion/static/app.js", "companion/static/vendor/htmx-2.0.11.min.js",
                 "companion/static/vendor/LICENSE-htmx.txt", "companion/static/vendor/idiomorph-ext-0.8.0.min.js",
                 "card_db/data/munchkin-base.json"]:
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
