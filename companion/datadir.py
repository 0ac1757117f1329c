"""Where the app keeps its data: the SQLite file and the generated secrets.

Both secrets are made on first use with :mod:`secrets`, kept in the data directory (mode
0600) and read ever after; none is ever written in the code.
"""
from __future__ import annotations

import os
import secrets
import time
from pathlib import Path
from typing import Callable

import platformdirs

ENV = "COMPANION_DATA"


def resolve(data_dir: str | os.PathLike | None = None) -> Path:
    """``data_dir`` if given, else ``$COMPANION_DATA``, else the per-user data directory."""
    path = Path(data_dir or os.environ.get(ENV) or platformdirs.user_data_dir("table-referee"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def secret_key(data_dir: Path) -> str:
    """The key that signs cookies."""
    return _generated(data_dir / "secret_key", lambda: secrets.token_hex(32))


def admin_secret(data_dir: Path) -> str:
    """The secret in the operator's admin link (``/admin/<secret>``), printed by ``companion serve``.

    Whoever opens the link becomes the server's operator in that browser: the one who may
    import cards and teach the scanner. Delete the file to make a new one (a restart then
    shuts out every browser that used the old link).
    """
    return _generated(data_dir / "admin_secret", lambda: secrets.token_urlsafe(32))


def _generated(path: Path, make: Callable[[], str]) -> str:
    """The secret in ``path``: made by ``make`` on first use (mode 0600) and read ever after.

    Creation uses ``O_EXCL`` so that several worker processes starting together agree
    on one secret instead of each writing its own.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        for _ in range(50):  # another process may be between create and write
            value = path.read_text().strip()
            if value:
                return value
            time.sleep(0.01)
        raise RuntimeError(f"{path} is empty; delete it to make a new one")
    value = make()
    with os.fdopen(fd, "w") as fh:
        fh.write(value + "\n")
    return value
