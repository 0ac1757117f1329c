"""What the title reader read on the enrolled cards' references, kept in the data directory.

To tell a card from its twins the recogniser reads the text where they differ on the
photo *and* on the stored references of the card and of the print's other cards
(``recognize._text_on``). A reference changes only when its card is taught again, so what
was read on it is kept in ``vision/texts.json``, keyed by the reader (its model), the card,
the place read and the reference file's identity (size and modification time): a taught
card or another reader reads anew, a card of another print's place too. Without it every
process read them anew on the photos that asked — a `companion vision recognize` call for
one photo 1 to 18 references of ~17 ms each besides the photo (docs/benchmarks.md,
2026-11-29 afternoon) — and `companion vision enroll` now reads them all once
(``recognize.read_references``).

The file is a cache: lost or damaged, it is read again from the references. Reading them
all (`enroll`) lets go of what no card enrolled now would ask for: the readings of a card
taught again or removed, whatever reader read them. Several
processes may add to it at once; each writes what the file holds then with its own entries
added, by a temporary file renamed over it (never half a file), so at worst an entry
written at the same moment is read once more. A reader that names no model (a test's) is
remembered in this process only.
"""
from __future__ import annotations

import json
import os
import tempfile
import threading
from pathlib import Path

FILE = "texts.json"


class Readings:
    """The readings of one index's references: in memory, and in ``root``/``FILE`` for a
    reader with a ``model`` name."""

    def __init__(self, root: Path | None):
        self.path = root / FILE if root is not None else None
        self._memory: dict = {}
        self._stored: dict[str, list] | None = None  # the file's entries, read on first use
        self._dirty = False
        self._lock = threading.Lock()

    def get(self, reader, key: tuple) -> tuple[str, float] | None | bool:
        """What ``reader`` read for ``key`` (card id, place, reference identity…), or False
        when it has not read it yet."""
        with self._lock:
            if (reader, key) in self._memory:
                return self._memory[reader, key]
            name = self._name(reader, key)
            if name is None:
                return False
            found = self._file().get(name)
            if not (isinstance(found, list) and len(found) == 2 and isinstance(found[0], str)
                    and isinstance(found[1], (int, float))):
                return False  # not read, or not a reading (a file edited by hand): read it
            return found[0], float(found[1])

    def put(self, reader, key: tuple, reading: tuple[str, float] | None, write: bool = True) -> None:
        """Remember ``reading`` (text and confidence; None: no reference to read); kept in
        the file when the reader names its model and there was something to read — written
        now, or with ``write`` False at the next ``flush`` (many readings at once)."""
        value = None if reading is None else (str(reading[0]), float(reading[1]))
        with self._lock:
            self._memory[reader, key] = value
            name = self._name(reader, key)
            if name is None or value is None:
                return
            self._file()[name] = list(value)
            self._dirty = True
            if write:
                self._write()

    def flush(self, keep: set[tuple] | None = None) -> None:
        """Write the readings ``put`` without writing; with ``keep`` (every key the index
        has now, ``recognize._text_key``), those of any reader under another key are dropped
        from the file: a card taught again or removed leaves its old readings behind, which
        no recognition asks for again."""
        with self._lock:
            if keep is not None and self.path is not None:
                wanted = {json.dumps(list(key)) for key in keep}
                stale = {name for name in {**self._read(), **self._file()}
                         if _key_part(name) not in wanted}
                if stale:
                    self._write(drop=stale)
                    return
            if self._dirty:
                self._write()

    def _name(self, reader, key: tuple) -> str | None:
        model = getattr(reader, "model", None)
        if model is None or self.path is None:
            return None
        return json.dumps([model, *key])

    def _file(self) -> dict[str, list]:
        if self._stored is None:
            self._stored = self._read()
        return self._stored

    def _read(self) -> dict[str, list]:
        try:
            found = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return found if isinstance(found, dict) else {}

    def _write(self, drop: set[str] = frozenset()) -> None:
        """The file as it is now with this process's entries added (and those named in
        ``drop`` left out), replaced whole."""
        merged = {name: value for name, value in {**self._read(), **self._file()}.items() if name not in drop}
        self._stored, self._dirty = merged, False
        try:
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".texts-")
        except OSError:  # a read-only data directory: remembered in this process only
            return
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(merged, fh, ensure_ascii=False)
            os.replace(tmp, self.path)
        except OSError:  # a full disk: the same
            Path(tmp).unlink(missing_ok=True)


def _key_part(name: str) -> str | None:
    """The key of a stored reading's name (the reader's model left out), as the names write
    it; None for a name that is no such list (a file edited by hand)."""
    try:
        found = json.loads(name)
    except ValueError:
        return None
    return json.dumps(found[1:]) if isinstance(found, list) and found else None
