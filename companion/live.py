"""Live notification: wake the streams of a table when its log grows.

The truth is the event log, shared by every worker process (and, on PostgreSQL, by every
instance). Each process runs one watcher thread that learns which tables changed and wakes
the streams waiting on them; a write made in this process also wakes them at once.
On SQLite the watcher polls the log's newest event id (an index lookup), so a tap served
by one worker reaches phones connected to another within one poll interval. On
PostgreSQL it listens (``LISTEN``) to the notices writes send as they commit, so a tap
served by one instance reaches the phones of every other one. Nothing lives only in one
process's memory: a watcher that starts late, or a phone that reconnects, just compares
versions with the database.
"""
from __future__ import annotations

import os
import threading

from . import db as dbmod
from . import store
from .postgres import PostgresStore, notifications

WATCH_START = 5.0  # seconds a stream waits at most for its process's watcher to start watching


class ChangeFeed:
    """Per-process fan-out of "table X changed" to the threads streaming table X."""

    def __init__(self, database: str, interval: float = 0.05):
        self.database = database  # the SQLite file, or a postgresql:// URL (companion.db.connect_store)
        self.interval = interval
        self._cond = threading.Condition()
        self._versions: dict[str, int] = {}  # table id -> change counter seen by this process
        self._thread: threading.Thread | None = None
        self._watching = threading.Event()  # set once the watcher hears every change from then on
        self._pid = None
        self._stopped = threading.Event()
        self._reader = None  # (pid, connection) that streams read the tables with
        self.open_streams: dict[str, int] = {}  # table id -> streams open in this process

    def _ensure_watcher(self) -> None:
        """Start the watcher on first use, and again in a forked child (threads do not survive
        fork), and wait until it is watching: a stream reads the table only after that, so a
        change committed in between is heard (it was missed, and the phone saw it only at the
        next keep-alive, 15 s later; a test of two instances on PostgreSQL caught it under load)."""
        if not self._watcher_alive():
            with self._cond:
                if not self._watcher_alive():  # (another stream may have started it meanwhile)
                    self._pid = os.getpid()
                    self._watching = threading.Event()
                    self._thread = threading.Thread(target=self._watch, args=(self._watching,),
                                                    name="companion-live", daemon=True)
                    self._thread.start()
        self._watching.wait(WATCH_START)

    def _watcher_alive(self) -> bool:
        """Whether this process's watcher thread runs (a forked child's copy of it does not)."""
        return self._thread is not None and self._pid == os.getpid() and self._thread.is_alive()

    def _watch(self, watching: threading.Event) -> None:
        try:
            conn = dbmod.connect_store(self.database)
            try:
                if isinstance(conn, PostgresStore):
                    heard = notifications(conn, self._stopped)  # listening from here on
                    watching.set()
                    for table_id in heard:
                        self.notify(table_id)
                    return
                last = store.last_event_id(conn)
                watching.set()
                while not self._stopped.wait(self.interval):
                    last, tables = store.changes_since(conn, last)
                    if tables:
                        self.notify(*tables)
            finally:
                conn.conn.close()
        finally:
            watching.set()  # also when the database could not be reached: nobody waits in vain

    def load(self, table_id: str):
        """The table's state, read with this process's shared reader connection.

        A waiting stream holds no connection of its own: thousands of open phones would
        otherwise hold thousands of SQLite connections (three files each). Reads are single
        autocommit statements, so one connection serves every stream of the process.
        """
        if self._reader is None or self._reader[0] != os.getpid():
            self._reader = (os.getpid(), dbmod.connect_store(self.database))
        try:
            return store.load(self._reader[1], table_id)
        except store.NotFound:
            raise
        except Exception:
            self._reader = None  # a broken connection (the database restarted): the next read opens a new one
            raise

    def opened(self, table_id: str, per_table: int, total: int) -> bool:
        """Count a new stream of ``table_id`` in, unless a cap is reached (then ``False``)."""
        with self._cond:
            if self.open_streams.get(table_id, 0) >= per_table or sum(self.open_streams.values()) >= total:
                return False
            self.open_streams[table_id] = self.open_streams.get(table_id, 0) + 1
            return True

    def closed(self, table_id: str) -> None:
        with self._cond:
            left = self.open_streams.get(table_id, 0) - 1
            if left > 0:
                self.open_streams[table_id] = left
            else:
                self.open_streams.pop(table_id, None)

    def notify(self, *table_ids: str) -> None:
        """Wake every stream of these tables (called by the watcher and after local writes)."""
        with self._cond:
            for table_id in table_ids:
                self._versions[table_id] = self._versions.get(table_id, 0) + 1
            self._cond.notify_all()

    def cursor(self, table_id: str) -> int:
        """A marker to pass to :meth:`wait`: changes after this call will wake the waiter."""
        self._ensure_watcher()
        with self._cond:
            return self._versions.get(table_id, 0)

    def wait(self, table_id: str, cursor: int, timeout: float) -> int | None:
        """Block until ``table_id`` changes after ``cursor`` or ``timeout`` passes.

        Returns the new cursor (unchanged after a timeout), or ``None`` once the feed is
        stopped, which tells streams to end.
        """
        self._ensure_watcher()
        with self._cond:
            self._cond.wait_for(lambda: self._versions.get(table_id, 0) != cursor or self._stopped.is_set(), timeout)
            return None if self._stopped.is_set() else self._versions.get(table_id, 0)

    def stop(self) -> None:
        self._stopped.set()
        with self._cond:
            self._cond.notify_all()
