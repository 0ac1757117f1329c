"""Lighthouse on the main pages (#17): the accessibility score and the PWA checks.

Starts `companion serve` on a fresh data directory, opens a table as a host would (a second
player joins, the door opens on a monster: the fight screen), then runs Lighthouse 11 (the
last version with the PWA category) in Debian's headless Chromium on each page, with the
host's cookie where the page needs a seat. Prints a Markdown table of the scores and every
audit that did not pass.

Lighthouse comes from npm: it is installed once into bench/results/lighthouse (ignored by
git), or give the path of a lighthouse binary with --lighthouse. It is a measurement, not a
test: it needs node and about 100 MB of packages, takes 10-20 s a page, and its scores move a
little between versions; the test suite checks the same things with axe
(tests/test_accessibility.py) and the manifest, worker and wake lock (tests/test_pwa.py,
tests/test_phone_app.py).

Run:  python bench/lighthouse.py [--lighthouse PATH] [--chromium /usr/bin/chromium]
"""
from __future__ import annotations

import argparse
import datetime
import http.cookiejar
import json
import os
import platform
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

LIGHTHOUSE_VERSION = "11.7.1"
INSTALL_DIR = Path(__file__).resolve().parent / "results" / "lighthouse"


def lighthouse_binary(given: str | None) -> str:
    if given:
        return given
    binary = INSTALL_DIR / "node_modules" / ".bin" / "lighthouse"
    if not binary.exists():
        INSTALL_DIR.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--prefix", str(INSTALL_DIR), "--no-audit", "--no-fund", "--loglevel=error",
                        f"lighthouse@{LIGHTHOUSE_VERSION}"], check=True)
    return str(binary)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    """A cookie jar and the CSRF token of the last page: enough to play a table over HTTP."""

    def __init__(self, base: str):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.csrf = None

    def get(self, path: str) -> str:
        with self.opener.open(self.base + path, timeout=10) as answer:
            page = answer.read().decode()
        found = re.search(r'name="csrf_token" value="([^"]+)"', page)
        self.csrf = found.group(1) if found else self.csrf
        return page

    def post(self, path: str, fields: dict) -> str:
        data = urllib.parse.urlencode({"csrf_token": self.csrf, **fields}).encode()
        with self.opener.open(urllib.request.Request(self.base + path, data=data), timeout=10) as answer:
            return answer.geturl()

    def cookie(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)


def start_server(data: Path, port: int) -> subprocess.Popen:
    server = subprocess.Popen([sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1", "--port", str(port),
                               "--no-qr", "--public-url", f"http://127.0.0.1:{port}"],
                              env={**os.environ, "COMPANION_DATA": str(data)}, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    for _ in range(300):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/health", timeout=1).close()
            return server
        except OSError:
            time.sleep(0.1)
    raise SystemExit("the server did not start")


def set_the_table(base: str) -> tuple[dict[str, str], str]:
    """A table with two players in a fight; the pages to check and the host's cookie."""
    host = Browser(base)
    host.get("/")
    table = host.post("/tables", {"name": "Friday", "profile": "munchkin-1.6", "player_name": "Alice", "sex": "female"})
    path = urllib.parse.urlparse(table).path
    page = host.get(path)
    join = re.search(r'id="join-url"[^>]*>([^<]+)<', page).group(1)
    spectator = re.search(r'id="spectator-url"[^>]*>([^<]+)<', page).group(1)
    request = urllib.request.Request(base + "/api/v1/join/" + join.rsplit("/", 1)[-1], method="POST",
                                     data=json.dumps({"name": "Bob", "sex": "male"}).encode(),
                                     headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=10).close()
    host.post(path + "/act/turn.door", {"found": "monster"})
    host.post(path + "/act/card.play", {"card": "maul-rat"})
    pages = {
        "home": base + "/",
        "table (host, fight)": base + path,
        "history": base + path + "/history",
        "join": join,
        "spectator": spectator,
        "rules search": base + "/rules?q=sell+items+level",
        "cards search": base + "/cards?q=boots+butt",
        "a card": base + "/cards/boots-of-butt-kicking",
        "offline page": base + "/offline",
    }
    return pages, host.cookie()


def run(lighthouse: str, chromium: str, url: str, cookie: str | None) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        command = [lighthouse, url, "--only-categories=accessibility,pwa", "--output=json", f"--output-path={out.name}",
                   "--quiet", "--chrome-flags=--headless=new --no-sandbox --disable-gpu"]
        if cookie:
            command.append("--extra-headers=" + json.dumps({"Cookie": cookie}))
        subprocess.run(command, check=True, env={**os.environ, "CHROME_PATH": chromium})
        report = json.load(open(out.name))
    failed = [f"{category}: {report['audits'][ref['id']]['id']}"
              for category, data in report["categories"].items() for ref in data["auditRefs"]
              if report["audits"][ref["id"]]["score"] is not None and report["audits"][ref["id"]]["score"] < 1]
    return {"scores": {k: round(v["score"] * 100) for k, v in report["categories"].items()}, "failed": failed,
            "version": report["lighthouseVersion"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lighthouse", help="a lighthouse binary (default: installed from npm)")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    lighthouse = lighthouse_binary(args.lighthouse)
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        server = start_server(Path(data), port)
        try:
            pages, cookie = set_the_table(f"http://127.0.0.1:{port}")
            results = {name: run(lighthouse, args.chromium, url, cookie) for name, url in pages.items()}
        finally:
            os.killpg(server.pid, 15)
            server.wait(timeout=20)
    version = next(iter(results.values()))["version"]
    print(f"Lighthouse {version}, {datetime.date.today()}, {platform.machine()} {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, {subprocess.run([args.chromium, '--version'], capture_output=True, text=True).stdout.strip()}\n")
    print("| page | accessibility | PWA | not passed |\n|---|---|---|---|")
    for name, result in results.items():
        print(f"| {name} | {result['scores'].get('accessibility')} | {result['scores'].get('pwa')} | "
              f"{', '.join(result['failed']) or '—'} |")


if __name__ == "__main__":
    main()
