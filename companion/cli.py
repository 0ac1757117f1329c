"""The ``companion`` command: serve the app, and look after its tables.

The CLI only wraps library functions; problems surface as ``click.ClickException`` with
a readable message.
"""
from __future__ import annotations

import socket
import sys

import click

from . import datadir, db, store
from .qr import terminal


@click.group()
@click.version_option(package_name="table-referee")
def main():
    """Table Referee: a phone companion and referee for Munchkin at a real table."""


def lan_address() -> str:
    """This machine's address on the local network, found without sending any packet.

    Takes the first non-loopback IPv4 address the host name resolves to; falls back to
    127.0.0.1 (then pass ``--public-url`` so phones get a reachable address).
    """
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        return "127.0.0.1"
    for *_, sockaddr in infos:
        if not sockaddr[0].startswith("127."):
            return sockaddr[0]
    return "127.0.0.1"


data_dir_option = click.option(
    "--data-dir", type=click.Path(file_okay=False), envvar=datadir.ENV, default=None,
    help="Where the SQLite file and secret key live (env COMPANION_DATA; default: per-user data dir).")


@main.command()
@click.option("--host", default="0.0.0.0", show_default=True, help="Address to listen on (0.0.0.0: the whole LAN).")
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 32), help="Worker processes.")
@click.option("--threads", default=64, show_default=True, type=click.IntRange(4, 2048),
              help="Threads per worker; each open phone holds one for its live stream.")
@click.option("--public-url", default=None, help="The URL phones use to reach this server (default: http://LAN-IP:PORT).")
@click.option("--no-qr", is_flag=True, help="Do not print the QR code.")
@data_dir_option
def serve(host, port, workers, threads, public_url, no_qr, data_dir):
    """Start the server on the LAN and print its URL and a QR code to open it."""
    try:
        from gunicorn.app.base import BaseApplication
    except ImportError:  # pragma: no cover - Windows has no gunicorn
        raise click.ClickException("`companion serve` needs gunicorn, which does not run on Windows.")
    from . import create_app

    path = datadir.resolve(data_dir)
    url = (public_url or f"http://{lan_address() if host in ('0.0.0.0', '::') else host}:{port}").rstrip("/")
    app = create_app({"DATA_DIR": str(path), "PUBLIC_URL": url})

    class Server(BaseApplication):
        def load_config(self):
            self.cfg.set("bind", f"{host}:{port}")
            self.cfg.set("workers", workers)
            self.cfg.set("threads", threads)
            self.cfg.set("worker_class", "gthread")
            self.cfg.set("timeout", 60)
            self.cfg.set("graceful_timeout", 5)
            self.cfg.set("keepalive", 5)
            self.cfg.set("accesslog", None)
            self.cfg.set("control_socket_disable", True)  # several servers may run on one machine

        def load(self):
            return app

    click.echo(f"Table Referee is open at {url}  (data: {path})")
    if not no_qr:
        click.echo("Scan to open it on a phone:")
        click.echo(terminal(url + "/"))
    sys.stdout.flush()
    Server().run()


@main.group()
def tables():
    """Inspect the tables stored in the data directory."""


def _open(data_dir):
    path = datadir.resolve(data_dir) / "companion.sqlite3"
    if not path.exists():
        raise click.ClickException(f"No database at {path}; start the app once with `companion serve`.")
    conn = db.connect(path)
    db.migrate(conn)
    return conn


@tables.command("list")
@data_dir_option
def tables_list(data_dir):
    """One line per table: id, version, players and their levels."""
    conn = _open(data_dir)
    for table_id in store.table_ids(conn):
        state = store.load(conn, table_id)
        players = ", ".join(f"{p.name} {p.level}" for p in state.players.values())
        click.echo(f"{table_id}  v{state.version}  {state.name}: {players}")


@tables.command("verify")
@data_dir_option
def tables_verify(data_dir):
    """Replay every table's event log and check it gives exactly the stored state."""
    conn = _open(data_dir)
    bad = [t for t in store.table_ids(conn) if not store.verify(conn, t)]
    if bad:
        raise click.ClickException(f"{len(bad)} table(s) differ from their event log: {', '.join(bad)}")
    click.echo(f"All {len(store.table_ids(conn))} table(s) match their event logs.")
