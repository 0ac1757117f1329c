"""Where the app keeps its data: the SQLite file and the generated secret key."""
from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

import platformdirs

ENV = "COMPANION_DATA"


def resolve(data_dir: str | os.PathLike | None = None) -> Path:
    """``data_dir`` if given, else ``$COMPANION_DATA``, else the per-user data directory."""
    path = Path(data_dir or os.environ.get(ENV) or platformdirs.user_data_dir("table-referee"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def secret_key(data_dir: Path) -> str:
    """The key that signs cookies: made on first run (mode 0600) and read ever after.

    Creation uses ``O_EXCL`` so that several worker processes starting together agree
    on one key instead of each writing its own.
    """
    path = data_dir / "secret_key"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        for _ in range(50):  # another process may be between create and write
            key = path.read_text().strip()
            if key:
                return key
            time.sleep(0.01)
        raise RuntimeError(f"{path} is empty; delete it to make a new key")
    key = secrets.token_hex(32)
    with os.fdopen(fd, "w") as fh:
        fh.write(key + "\n")
    return key
