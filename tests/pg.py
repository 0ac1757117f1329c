"""A throw-away PostgreSQL server for the tests: Debian's own binaries, a cluster in a
temporary directory, TCP on a free loopback port, trust authentication; a fresh database
for each test that asks for one.

PostgreSQL refuses to run as root; as root the cluster is made and run as the ``postgres``
user the Debian package creates. Without PostgreSQL installed the tests that need it are
skipped on a developer's machine and fail in CI (``scripts/test`` installs it).
"""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

from liveserver import free_port


def binaries() -> Path | None:
    """The newest installed server's bin directory (``/usr/lib/postgresql/<major>/bin``)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parent.parent.name))
    return Path(found[-1]).parent if found else None


class Cluster:
    """One running PostgreSQL server of the test session."""

    def __init__(self):
        self.bin = binaries()
        if self.bin is None:
            raise FileNotFoundError("PostgreSQL is not installed (apt-get install postgresql)")
        self.root = Path(tempfile.mkdtemp(prefix="companion-pg-"))
        self.port = free_port()
        self.as_postgres = os.geteuid() == 0
        if self.as_postgres:
            shutil.chown(self.root, "postgres", "postgres")
        self._run("initdb", "-D", str(self.root / "data"), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                  "--no-sync")
        self._run("pg_ctl", "-D", str(self.root / "data"), "-l", str(self.root / "log"), "-w", "start",
                  "-o", f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root} -c fsync=off "
                  "-c full_page_writes=off -c max_connections=300")

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bin / program), *args]
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode:
            raise RuntimeError(f"{program} failed: {result.stdout}{result.stderr}")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A new empty database; returns its URL."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.root / "data"), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
