"""The ``companion`` command: serve the app, and look after its tables.

The CLI only wraps library functions; problems surface as ``click.ClickException`` with
a readable message.
"""
from __future__ import annotations

import shlex
import socket
import sys

import click

import json
from pathlib import Path

from . import datadir, serving
from .referee.profiles import PROFILES
from .referee.languages import LANGUAGES

# The rest is imported by the commands that use it: a command starts without what the
# others need (`companion vision recognize` without the referee, the rule search or the
# card schema's validator).


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


database_url_option = click.option(
    "--database-url", envvar="COMPANION_DATABASE_URL", default=None, metavar="postgresql://…",
    help="Keep the tables in PostgreSQL, shared by several instances (env COMPANION_DATABASE_URL; "
         "default: the SQLite file in the data directory).")


@main.command()
@click.option("--host", default="0.0.0.0", show_default=True, help="Address to listen on (0.0.0.0: the whole LAN).")
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--workers", default=serving.WORKERS, show_default=True, type=click.IntRange(1, 32),
              help="Worker processes (each holds its share of the phones; two use both cores of a small machine).")
@click.option("--connections", default=serving.CONNECTIONS, show_default=True, type=click.IntRange(50, 100_000),
              help="Open connections per worker; each phone's live stream holds one, waiting costs no thread.")
@click.option("--public-url", default=None, help="The URL phones use to reach this server (default: http://LAN-IP:PORT).")
@click.option("--trusted-proxies", default=0, show_default=True, type=click.IntRange(0, 5),
              help="Reverse proxies in front (Caddy, nginx) whose X-Forwarded-* headers are believed.")
@click.option("--no-qr", is_flag=True, help="Do not print the QR code.")
@data_dir_option
@database_url_option
def serve(host, port, workers, connections, public_url, trusted_proxies, no_qr, data_dir, database_url):
    """Start the server on the LAN and print its URL and a QR code to open it."""
    from . import postgres
    from .qr import terminal

    serving.prepare()  # before the app exists, so that everything it creates waits without blocking
    from . import create_app

    path = datadir.resolve(data_dir)
    url = (public_url or f"http://{lan_address() if host in ('0.0.0.0', '::') else host}:{port}").rstrip("/")
    _check_url(database_url)
    app = create_app({"DATA_DIR": str(path), "PUBLIC_URL": url, "MAX_OPEN_STREAMS": serving.stream_cap(connections),
                      "TRUSTED_PROXIES": trusted_proxies, "DATABASE_URL": database_url})
    tables_at = f"tables: {postgres.safe_url(database_url)}" if database_url else f"data: {path}"
    click.echo(f"Table Referee is open at {url}  ({tables_at})")
    from .web.operator import admin_url

    click.echo(f"Operator (import cards, teach the scanner): {admin_url(app, url)}")
    click.echo("  Keep this link to yourself: whoever opens it can change the cards for every table.")
    if not no_qr:
        click.echo("Scan to open it on a phone:")
        click.echo(terminal(url + "/"))
    sys.stdout.flush()
    serving.run(app, f"{host}:{port}", workers, connections)


def _photo_bytes(path: Path) -> bytes:
    """A photo's bytes, read no further than one byte past the size limit (which then refuses it)."""
    from vision.image import MAX_BYTES

    with open(path, "rb") as f:
        return f.read(MAX_BYTES + 1)


@main.group()
def tables():
    """Inspect the tables stored in the data directory."""


def _open(data_dir, create: bool = False):
    """The data directory's database; ``create`` makes it (with the bundled cards) if missing."""
    from . import db

    path = datadir.resolve(data_dir) / "companion.sqlite3"
    if not path.exists() and not create:
        raise click.ClickException(f"No database at {path}; start the app once with `companion serve`.")
    conn = db.connect(path)
    db.migrate(conn)
    return conn


def _check_url(database_url: str | None) -> None:
    from . import postgres

    if database_url and not postgres.is_url(database_url):
        raise click.BadParameter("give a postgresql:// URL", param_hint="--database-url")


def _open_tables(data_dir, database_url):
    """Where the tables are: PostgreSQL at ``database_url`` when given, else the data directory's file."""
    from . import postgres

    if not database_url:
        return _open(data_dir)
    _check_url(database_url)
    try:
        conn = postgres.connect(database_url)
        postgres.migrate(conn)
    except Exception as exc:  # psycopg's errors say what is wrong (host, password, database)
        raise click.ClickException(f"Cannot use {postgres.safe_url(database_url)}: {exc}".strip()) from exc
    return conn


@tables.command("list")
@data_dir_option
@database_url_option
def tables_list(data_dir, database_url):
    """One line per table: id, version, players and their levels."""
    from . import store

    conn = _open_tables(data_dir, database_url)
    for table_id in store.table_ids(conn):
        state = store.load(conn, table_id)
        players = ", ".join(f"{p.name} {p.level}" for p in state.players.values())
        click.echo(f"{table_id}  v{state.version}  {state.name}: {players}")


@tables.command("verify")
@data_dir_option
@database_url_option
def tables_verify(data_dir, database_url):
    """Replay every table's event log and check it gives exactly the stored state."""
    from . import store

    conn = _open_tables(data_dir, database_url)
    bad = [t for t in store.table_ids(conn) if not store.verify(conn, t)]
    if bad:
        raise click.ClickException(f"{len(bad)} table(s) differ from their event log: {', '.join(bad)}")
    click.echo(f"All {len(store.table_ids(conn))} table(s) match their event logs.")


@main.group()
def cards():
    """Look up, import, export and validate cards."""


@cards.command("search")
@click.argument("query")
@click.option("--deck", type=click.Choice(["door", "treasure"]))
@click.option("--kind", default=None, help="monster, curse, monster_enhancer, race, class, special, item, one_shot, go_up_a_level")
@click.option("--limit", default=10, show_default=True, type=click.IntRange(1, 100))
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
@data_dir_option
def cards_search(query, deck, kind, limit, as_json, data_dir):
    """Find cards by any of their names, in any language, forgiving typos and accents."""
    from card_db import search as card_search
    from card_db import store as card_store

    conn = _open(data_dir, create=True)
    for hit in card_search.search(conn, query, deck=deck, kind=kind, limit=limit, cache_key="cli"):
        card = card_store.get(conn, hit.card_id)
        if as_json:
            click.echo(json.dumps({"id": hit.card_id, "name": card["names"]["en"], "matched": hit.name,
                                   "lang": hit.lang, "score": hit.score}, ensure_ascii=False))
        else:
            click.echo(f"{hit.card_id:40} {card['names']['en']}" + (f"  ({hit.name})" if hit.name != card["names"]["en"] else ""))


@cards.command("show")
@click.argument("card_id")
@data_dir_option
def cards_show(card_id, data_dir):
    """Print one card's record as JSON."""
    from card_db import store as card_store

    card = card_store.get(_open(data_dir, create=True), card_id)
    if card is None:
        raise click.ClickException(f"No card with id {card_id!r}; try `companion cards search`.")
    click.echo(json.dumps(card, ensure_ascii=False, indent=1, sort_keys=True))


def _read_cards(path: str, fmt: str | None) -> list:
    from card_db import formats

    data = Path(path).read_bytes()
    try:
        return formats.parse(data, fmt or formats.detect(path, data))
    except formats.FormatError as exc:
        raise click.ClickException(f"{path}: {exc}") from None


@cards.command("validate")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["json", "csv"]), help="Default: from the file name or content.")
def cards_validate(file, fmt):
    """Check a JSON or CSV card file without importing it; lists every problem."""
    records = _read_cards(file, fmt)
    from card_db.schema import validate

    problems = validate(records)
    for problem in problems:
        click.echo(str(problem), err=True)
    if problems:
        raise click.ClickException(f"{len(problems)} problem(s) in {len(records)} card(s).")
    click.echo(f"{len(records)} card(s) are valid.")


@cards.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["json", "csv"]), help="Default: from the file name or content.")
@data_dir_option
def cards_import(file, fmt, data_dir):
    """Add or replace your own cards (expansions, house cards) from JSON or CSV, all or nothing."""
    from card_db import store as card_store

    records = _read_cards(file, fmt)
    conn = _open(data_dir, create=True)
    try:
        count = card_store.import_cards(conn, records)
    except card_store.InvalidCards as exc:
        for problem in exc.problems:
            click.echo(str(problem), err=True)
        raise click.ClickException(f"Nothing imported: {len(exc.problems)} problem(s).") from None
    click.echo(f"Imported {count} card(s).")


@cards.command("export")
@click.option("--format", "fmt", type=click.Choice(["json", "csv"]), default="json", show_default=True)
@click.option("--origin", type=click.Choice(["bundled", "imported"]), help="Only the base game, or only your own cards.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), help="Default: standard output.")
@data_dir_option
def cards_export(fmt, origin, output, data_dir):
    """Write cards in the import format (re-importing gives the same cards)."""
    from card_db import formats
    from card_db import store as card_store

    records = card_store.export(_open(data_dir, create=True), origin=origin)
    text = formats.to_json(records) if fmt == "json" else formats.to_csv(records)
    if output:
        Path(output).write_text(text, encoding="utf-8")
        click.echo(f"Wrote {len(records)} card(s) to {output}.", err=True)
    else:
        click.echo(text, nl=False)


@main.group()
def rules():
    """Settle an argument: search the rule entries, or show one, in any of the six languages."""


_LANG = click.option("--lang", type=click.Choice(LANGUAGES), default="en", show_default=True,
                     help="The language of the answer (the question may be in any).")
_PROFILE = click.option("--profile", type=click.Choice(sorted(PROFILES)), default=None,
                        help="Cite this edition's book first.")


@rules.command("search")
@click.argument("question")
@_LANG
@_PROFILE
@click.option("--limit", default=3, show_default=True, type=click.IntRange(1, 20))
@click.option("--json", "as_json", is_flag=True, help="One JSON object per answer and line.")
def rules_search(question, lang, profile, limit, as_json):
    """Answer a plain-language question with the rule entries, best first."""
    from . import rulesearch

    answers = rulesearch.search(question[:rulesearch.QUERY_MAX], lang, profile, limit)
    if not answers:
        raise click.ClickException("No rule matches; try other words (the owner of the game has the last word).")
    for answer in answers:
        if as_json:
            click.echo(json.dumps(answer, ensure_ascii=False))
        else:
            click.echo(f"{answer['title']}  [{answer['id']}]\n  {answer['summary']}\n  {answer['citation']}")
            for note in answer["differs"]:
                click.echo(f"  ({PROFILES[note['profile']].name}) {note['note']}")


@rules.command("show")
@click.argument("rule_id")
@_LANG
@_PROFILE
def rules_show(rule_id, lang, profile):
    """Print one rule entry as JSON: words, citations per edition, differences, related entries."""
    from .referee.rules import RULES

    if rule_id not in RULES:
        raise click.ClickException(f"No rule {rule_id!r}; try `companion rules search`.")
    click.echo(json.dumps(RULES[rule_id].as_dict(lang, profile), ensure_ascii=False, indent=1))


@main.group()
def referee():
    """Ask the referee without a table (JSON in, JSON out)."""


@referee.command("combat")
@click.argument("file", type=click.File("r", encoding="utf-8"))
@data_dir_option
def referee_combat(file, data_dir):
    """Judge a fight described in FILE (JSON; - for standard input); see docs/combat.md.

    A Munchkin Quest fight says "profile": "munchkin-quest": each player's level, worn items and
    a d6 ("die") against each monster's level, bonus and "dice" (as rolled, or how many the app
    rolls); the answer has both totals, the outcome (a tie goes to the monsters) and, for a
    lost fight, "flee" with a die per monster ("flee": {"fighter": [...]}) and the health lost;
    see docs/api.md, "A Munchkin Quest fight".

    Prints the verdict as JSON. An invalid description prints {"error", "rule"} and exits 1.
    """
    from .fights import evaluate
    from .referee.rules import Refused

    try:
        fight = json.load(file)
    except json.JSONDecodeError as exc:
        click.echo(json.dumps({"error": f"not valid JSON: {exc.msg} at line {exc.lineno}", "rule": None}))
        sys.exit(1)
    try:
        verdict = evaluate(_open(data_dir, create=True), fight)
    except Refused as exc:
        click.echo(json.dumps(exc.as_dict(), ensure_ascii=False))
        sys.exit(1)
    click.echo(json.dumps(verdict, ensure_ascii=False, indent=1))


@main.group()
def vision():
    """Recognise cards from photos: enrol reference images, recognise photos."""


def _vision(data_dir, check: bool = True):
    """The scanning module and the data directory's index; ``check``: refuse, with what to do,
    an index written by an earlier version of the app."""
    from vision.index import OutdatedIndex

    from . import scanning

    index = scanning.index_for(datadir.resolve(data_dir))
    if check:
        try:
            index.refresh()
        except OutdatedIndex as exc:
            raise click.ClickException(str(exc)) from exc
    return scanning, index


@vision.command("enroll")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--card", "card_id", help="The card id of the one image given (otherwise files are named by card id).")
@click.option("--kind", type=click.Choice(["auto", "scan", "photo"]), default="auto", show_default=True,
              help="scan: the image is the card face; photo: find the card on the table; auto: decide.")
@click.option("--any-id", is_flag=True,
              help="Take every file's name as the card id as it is (any script, spaces), even one that "
                   "folds to a card database id, and warn of none.")
@data_dir_option
def vision_enroll(paths, card_id, kind, any_id, data_dir):
    """Enrol reference images: files or folders of files named <card id>.jpg/.png/.webp.

    A name that is no card of the card database is the card's id as it is; such names are
    counted, and one like a card's name is warned of as misspelt. When most names are no
    card of it (another game's cards), every name is taken as it is, as with --any-id.
    All or nothing: every problem is listed by file and nothing is enrolled if there is one.
    With the [ocr] extra, the text where twin cards differ is then read once on every
    reference and kept, for recognition to compare.
    """
    from vision import enroll as vision_enroll_mod

    files: dict[str, Path] = {}
    for image in (f for p in paths for f in (vision_enroll_mod.folder(p) if p.is_dir() else [p])):
        if files.setdefault(image.stem, image) != image:  # net-troll.jpg and net-troll.png: which is the card?
            raise click.ClickException(f"{files[image.stem]} and {image} would both be the card "
                                       f"{image.stem!r}; nothing enrolled.")
    if card_id:
        if len(files) != 1:
            raise click.ClickException("--card names the card of exactly one image file.")
        files = {card_id: next(iter(files.values()))}
    if not files:
        raise click.ClickException("No .jpg, .jpeg, .png or .webp files found.")
    scanning, index = _vision(data_dir)
    conn = _open(data_dir, create=True)
    if not any_id and scanning.another_game(conn, list(files)):
        any_id = True
        click.echo("Most of these names are no card of the card database: all are taken as they are, as "
                   "another game's cards (as with --any-id).", err=True)
    try:
        done = scanning.enroll(conn, index, {cid: (str(p), _photo_bytes(p)) for cid, p in files.items()},
                               kind=kind, any_id=any_id)
    except scanning.EnrollProblems as exc:
        for where, message in exc.problems:
            click.echo(f"{where}: {message}", err=True)
        raise click.ClickException(str(exc)) from None
    click.echo(f"Enrolled {len(done)} card image(s); {len(index)} in the index.")
    _read_references(scanning, index)
    unknown = [] if any_id else scanning.unknown_names(conn, done)
    for name, like in unknown:
        if like:
            click.echo(f"{files[name]}: {name!r} is no card of the card database, but much like {like!r}: "
                       f"if it is that card, rename the file and enrol it again (`companion vision remove "
                       f"{shlex.quote(name)}` forgets this one).", err=True)
    if unknown:
        click.echo(f"{len(unknown)} of the {len(done)} name(s) are no card of the card database: enrolled as "
                   "they are, answered as they are by `recognize`.", err=True)


@vision.command("recognize")
@click.argument("images", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line and image.")
@click.option("--lang", default="en", show_default=True, help="Language of the card names.")
@data_dir_option
def vision_recognize(images, as_json, lang, data_dir):
    """Recognise the card in each IMAGE: the best candidates, or why it abstained. An IMAGE
    may be a folder: its .jpg/.png/.webp files, by name.

    Exits 1 if any image could not be read (the other images are still answered).
    """
    from vision.enroll import folder
    from vision.image import ImageError

    files = [f for p in images for f in (folder(p) if p.is_dir() else [p])]
    if not files:
        raise click.ClickException("No .jpg, .jpeg, .png or .webp files found.")
    scanning, index = _vision(data_dir)
    conn = _open(data_dir, create=True)
    failed = False
    for path in files:
        try:
            answer = scanning.recognize(conn, index, _photo_bytes(path), lang=lang)
        except ImageError as exc:
            failed = True
            answer = {"card_id": None, "reason": exc.reason, "message": str(exc), "candidates": []}
        answer = {"image": str(path), **answer}
        if as_json:
            click.echo(json.dumps(answer, ensure_ascii=False))
        elif answer["card_id"]:
            top = answer["candidates"][0]
            click.echo(f"{path}: {answer['name']} ({top['card_id']}), confidence {top['confidence']:.2f}, "
                       f"{answer['elapsed_ms']:.0f} ms")
        else:
            guesses = ", ".join(f"{c['card_id']} {c['confidence']:.2f}" for c in answer["candidates"][:3])
            click.echo(f"{path}: unknown card — {answer['message']}" + (f" (closest: {guesses})" if guesses else ""))
    if failed:
        sys.exit(1)


@vision.command("list")
@data_dir_option
def vision_list(data_dir):
    """The enrolled card ids with their names."""
    from card_db import store as card_store

    scanning, index = _vision(data_dir)
    conn = _open(data_dir, create=True)
    for card_id in index.refresh().ids:
        click.echo(f"{card_id}\t{scanning.card_name(card_store.get(conn, card_id)) or '(not in the card database)'}")
    click.echo(f"{len(index)} card image(s) enrolled.", err=True)


@vision.command("remove")
@click.argument("card_id")
@data_dir_option
def vision_remove(card_id, data_dir):
    """Forget the reference image of CARD_ID."""
    _, index = _vision(data_dir)
    if not index.remove(card_id):
        raise click.ClickException(f"{card_id!r} is not enrolled.")
    click.echo(f"Removed {card_id}; {len(index)} card image(s) enrolled.")


@vision.command("rebuild")
@data_dir_option
def vision_rebuild(data_dir):
    """Describe every stored reference image again (after an upgrade changed the index format).

    Each is first stored the way up its deck is (cards taught from photos before that).
    With the [ocr] extra, the text where twin cards differ is then read again where needed.
    """
    scanning, index = _vision(data_dir, check=False)
    click.echo(f"Rebuilt the index from {index.rebuild()} reference image(s).")
    _read_references(scanning, index)


def _read_references(scanning, index) -> None:
    """Read the text where twins differ on the references not read yet, and say how many
    (``scanning.read_references``: with the [ocr] extra only)."""
    read = scanning.read_references(index)
    if read:
        click.echo(f"Read the text where twins differ on {read} reference(s), for recognition to compare.")
