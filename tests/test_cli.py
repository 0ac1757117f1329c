"""The CLI: its reference in docs/cli.md is generated from the commands and cannot drift."""
import json
import os
import shutil
from pathlib import Path

import click
import pytest
import cv2
from click.testing import CliRunner

from bench import card_photos as cp
from companion.cli import lan_address, main

DOC = Path(__file__).resolve().parent.parent / "docs" / "cli.md"


def render_cli_docs() -> str:
    """docs/cli.md: every command's --help, in order."""
    parts = ["# Command-line reference\n",
             "Generated from the commands themselves by `tests/test_cli.py` "
             "(regenerate with `UPDATE_DOCS=1 pytest tests/test_cli.py`).\n"]

    def walk(command: click.Command, path: list[str]):
        ctx = click.Context(command, info_name=" ".join(path), terminal_width=80, max_content_width=80)
        parts.append(f"## `{' '.join(path)}`\n\n```\n{command.get_help(ctx).strip()}\n```\n")
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                walk(command.get_command(ctx, name), [*path, name])

    walk(main, ["companion"])
    return "\n".join(parts)


def test_cli_reference_is_current():
    text = render_cli_docs()
    if os.environ.get("UPDATE_DOCS"):
        DOC.write_text(text)
    assert DOC.read_text() == text, "docs/cli.md is stale: run UPDATE_DOCS=1 pytest tests/test_cli.py"


def test_tables_list_and_verify(app, phones):
    alice, bob, _ = phones
    bob.act("level.up")
    runner = CliRunner()
    listed = runner.invoke(main, ["tables", "list", "--data-dir", app.config["DATA_DIR"]])
    assert listed.exit_code == 0 and "Bob 2" in listed.output
    verified = runner.invoke(main, ["tables", "verify", "--data-dir", app.config["DATA_DIR"]])
    assert verified.exit_code == 0 and "match their event logs" in verified.output


def test_verify_detects_a_tampered_snapshot(app, phones):
    import sqlite3
    conn = sqlite3.connect(app.config["DATABASE"])
    conn.execute("UPDATE tables SET state = replace(state, '\"level\": 1', '\"level\": 7')")
    conn.commit()
    conn.close()
    result = CliRunner().invoke(main, ["tables", "verify", "--data-dir", app.config["DATA_DIR"]])
    assert result.exit_code == 1 and "differ from their event log" in result.output


def test_missing_database_is_a_readable_error(tmp_path):
    result = CliRunner().invoke(main, ["tables", "list", "--data-dir", str(tmp_path / "none")])
    assert result.exit_code == 1 and "No database" in result.output and "Traceback" not in result.output


def test_lan_address_is_an_ipv4_address():
    parts = lan_address().split(".")
    assert len(parts) == 4 and all(p.isdigit() for p in parts)


def test_cards_commands(tmp_path):
    runner = CliRunner()
    data = ["--data-dir", str(tmp_path / "data")]
    found = runner.invoke(main, ["cards", "search", "wutend", *data])
    assert found.exit_code == 0 and found.output.startswith("enraged") and "Wütend" in found.output
    as_json = runner.invoke(main, ["cards", "search", "impiegatroll", "--json", *data])
    assert json.loads(as_json.output.splitlines()[0])["id"] == "net-troll"
    shown = runner.invoke(main, ["cards", "show", "net-troll", *data])
    assert json.loads(shown.output)["monster"]["level"] == 10
    missing = runner.invoke(main, ["cards", "show", "nope", *data])
    assert missing.exit_code == 1 and "No card with id 'nope'" in missing.output

    house = tmp_path / "house.csv"
    house.write_text("id,deck,kind,set,name_en,level,treasures\ngoblin-king,door,monster,house,Goblin King,9,3\n")
    assert runner.invoke(main, ["cards", "validate", str(house)]).exit_code == 0
    imported = runner.invoke(main, ["cards", "import", str(house), *data])
    assert imported.exit_code == 0 and "Imported 1 card(s)" in imported.output
    out = tmp_path / "mine.json"
    exported = runner.invoke(main, ["cards", "export", "--origin", "imported", "-o", str(out), *data])
    assert exported.exit_code == 0
    assert json.loads(out.read_text())["cards"][0]["monster"] == {"level": 9, "treasures": 3}

    broken = tmp_path / "broken.csv"
    broken.write_text("id,deck,kind,set,name_en,level,treasures\nbad,door,monster,house,Bad,high,3\n")
    result = runner.invoke(main, ["cards", "import", str(broken), *data])
    assert result.exit_code == 1 and "record 1 (bad), monster.level: 'high' is not of type 'integer'" in result.output
    assert "Nothing imported" in result.output
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{nope")
    result = runner.invoke(main, ["cards", "validate", str(garbage)])
    assert result.exit_code == 1 and "not valid JSON" in result.output and "Traceback" not in result.output


def test_vision_commands(tmp_path):
    """Enrol a folder named by card id, recognise photos as JSON lines, refuse bad input whole."""
    runner = CliRunner()
    data = ["--data-dir", str(tmp_path / "data")]
    records = json.loads((DOC.parent.parent / "card_db" / "data" / "munchkin-base.json").read_text())["cards"][:24]
    scans = tmp_path / "scans"
    scans.mkdir()
    for rec in records:
        cv2.imwrite(str(scans / f"{rec['id']}.png"), cp.face(cp.card_for(rec["id"], rec["names"]["en"])))
    (scans / "notes.txt").write_text("ignored: not an image extension")
    (scans / f"._{records[2]['id']}.png").write_bytes(b"\0\5\x16\7")  # ignored: a Mac's resource fork, hidden

    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "no-such-card.png").write_bytes((scans / f"{records[0]['id']}.png").read_bytes())
    (bad / f"{records[1]['id']}.jpg").write_text("this is text, not a JPEG")
    refused = runner.invoke(main, ["vision", "enroll", str(bad), *data])
    assert refused.exit_code == 1 and "1 problem(s); nothing enrolled" in refused.output
    assert "not a JPEG, PNG or WebP image" in refused.output and "no-such-card" not in refused.output

    both = tmp_path / "both"
    both.mkdir()
    for stem in (records[0]["id"], records[0]["id"].title()):
        (both / f"{stem}.png").write_bytes((scans / f"{records[0]['id']}.png").read_bytes())
    refused = runner.invoke(main, ["vision", "enroll", str(both), "--kind", "scan", *data])
    assert refused.exit_code == 1 and f"another image is named {records[0]['id']!r} already" in refused.output
    (both / f"{records[0]['id']}.jpg").write_bytes((scans / f"{records[0]['id']}.png").read_bytes())
    refused = runner.invoke(main, ["vision", "enroll", str(both), "--kind", "scan", *data])
    assert refused.exit_code == 1 and f"would both be the card {records[0]['id']!r}; nothing enrolled" in refused.output

    # files named by hand, with capitals or by the card's name, are the card whose id that folds to
    (scans / f"{records[0]['id']}.png").rename(scans / f"{records[0]['id'].title()}.png")
    (scans / f"{records[1]['id']}.png").rename(scans / f"{records[1]['names']['en']}.png")
    enrolled = runner.invoke(main, ["vision", "enroll", str(scans), "--kind", "scan", *data])
    assert enrolled.exit_code == 0, enrolled.output
    assert "Enrolled 24 card image(s); 24 in the index." in enrolled.output
    assert f"{records[0]['id']}\t" in runner.invoke(main, ["vision", "list", *data]).output

    target = records[5]
    photo = tmp_path / "photo.jpg"
    photo.write_bytes(cp.photo(cp.face(cp.card_for(target["id"], target["names"]["en"])), "medium", seed=2,
                               size=(1024, 768)))
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"")
    result = runner.invoke(main, ["vision", "recognize", str(photo), str(junk), "--json", "--lang", "de", *data])
    assert result.exit_code == 1   # one image was unreadable; both are answered
    first, second = (json.loads(line) for line in result.output.splitlines())
    assert first["card_id"] == target["id"] and first["image"] == str(photo)
    assert first["name"] == target["names"].get("de", target["names"]["en"])
    assert first["candidates"][0]["confidence"] >= 0.5 and first["elapsed_ms"] > 0
    assert second == {"image": str(junk), "card_id": None, "reason": "empty",
                      "message": "The upload is empty (0 bytes).", "candidates": []}
    human = runner.invoke(main, ["vision", "recognize", str(photo), *data])
    assert human.exit_code == 0 and target["names"]["en"] in human.output
    shots = tmp_path / "shots"  # a folder: its images by name, the rest left alone
    shots.mkdir()
    (shots / "b.jpg").write_bytes(photo.read_bytes())
    cv2.imwrite(str(shots / "a.png"), cv2.imread(str(photo)))
    (shots / "truth.csv").write_text("photo,card_id\n")
    (shots / ".hidden.jpg").write_bytes(b"")
    folder = runner.invoke(main, ["vision", "recognize", str(shots), "--json", *data])
    answers = [json.loads(line) for line in folder.output.splitlines()]
    assert folder.exit_code == 0 and [a["image"] for a in answers] == [str(shots / "a.png"), str(shots / "b.jpg")]
    assert all(a["card_id"] == target["id"] for a in answers), answers
    (tmp_path / "empty").mkdir()
    empty = runner.invoke(main, ["vision", "recognize", str(tmp_path / "empty"), *data])
    assert empty.exit_code == 1 and "No .jpg, .jpeg, .png or .webp files found." in empty.output

    listed = runner.invoke(main, ["vision", "list", *data])
    assert listed.exit_code == 0 and f"{target['id']}\t{target['names']['en']}" in listed.output
    assert runner.invoke(main, ["vision", "remove", target["id"], *data]).exit_code == 0
    assert runner.invoke(main, ["vision", "remove", target["id"], *data]).exit_code == 1
    rebuilt = runner.invoke(main, ["vision", "rebuild", *data])
    assert rebuilt.exit_code == 0 and "23 reference image(s)" in rebuilt.output


def test_vision_enroll_takes_names_no_card_has_as_they_are_and_warns_of_a_misspelt_one(tmp_path):
    """Enrolment without ``--any-id``. In a folder of Munchkin cards, a name that is no card
    of the card database is the card's id as it is, a name that folds to a card's id is that
    card, and one much like a card's name is enrolled too, but named in a warning with the
    card it may have meant (a file named with a letter wrong). A folder whose names are
    mostly no card of it is another game's deck: every name is taken as it is — its "Net
    Troll" is its own card, not Munchkin's — and ``recognize`` answers with it. With
    ``--any-id`` nothing is folded and nothing warned of."""
    runner = CliRunner()
    records = json.loads((DOC.parent.parent / "card_db" / "data" / "munchkin-base.json").read_text())["cards"]
    ids = [rec["id"] for rec in records if rec["id"] != "net-troll"][:3]

    def folder(name, names):
        path = tmp_path / name
        path.mkdir()
        for k, card in enumerate(names):
            cv2.imwrite(str(path / f"{card}.png"), cp.face(cp.card_for(f"{name}-{k}", card)))
        return path

    def listed(data):
        return {line.split("\t")[0] for line in runner.invoke(main, ["vision", "list", *data]).output.splitlines()
                if "\t" in line}
    data = ["--data-dir", str(tmp_path / "munchkin")]
    enrolled = runner.invoke(main, ["vision", "enroll", str(folder("ours", [*ids, "Net Troll", "Boots of Buttkicking",
                                                                           "Frost Wyrm"])), "--kind", "scan", *data])
    assert enrolled.exit_code == 0 and "Enrolled 6 card image(s); 6 in the index." in enrolled.output, enrolled.output
    assert "2 of the 6 name(s) are no card of the card database" in enrolled.output and "Most" not in enrolled.output
    warned = [line for line in enrolled.output.splitlines() if "much like" in line]
    assert len(warned) == 1 and "'Boots of Buttkicking'" in warned[0] and "'boots-of-butt-kicking'" in warned[0]
    assert listed(data) == {*ids, "net-troll", "Boots of Buttkicking", "Frost Wyrm"}

    theirs = folder("theirs", ["card_001", "Frost Wyrm", "Net Troll", "Tiny Scrolls"])
    data = ["--data-dir", str(tmp_path / "other-game")]
    enrolled = runner.invoke(main, ["vision", "enroll", str(theirs), "--kind", "scan", *data])
    assert enrolled.exit_code == 0 and "Enrolled 4 card image(s)" in enrolled.output, enrolled.output
    assert "all are taken as they are" in enrolled.output and "much like" not in enrolled.output
    assert listed(data) == {"card_001", "Frost Wyrm", "Net Troll", "Tiny Scrolls"}
    photo = tmp_path / "photo.jpg"
    photo.write_bytes(cp.photo(cp.face(cp.card_for("theirs-2", "Net Troll")), "easy", seed=3, size=(1024, 768)))
    result = runner.invoke(main, ["vision", "recognize", str(photo), "--json", *data])
    assert result.exit_code == 0 and json.loads(result.output)["card_id"] == "Net Troll", result.output

    data = ["--data-dir", str(tmp_path / "any-id")]
    again = runner.invoke(main, ["vision", "enroll", str(tmp_path / "ours"), "--kind", "scan", "--any-id", *data])
    assert again.exit_code == 0 and "no card" not in again.output and "much like" not in again.output, again.output
    assert "Net Troll" in listed(data) and "net-troll" not in listed(data)


def test_vision_enroll_any_id_takes_file_names_as_they_are(tmp_path):
    """Another game's cards (``--any-id``) are named by their files as a person named them —
    spaces, accents, other scripts — and recognised under those names, also after a rebuild;
    a name that cannot be an id is refused by file, and nothing is enrolled."""
    runner = CliRunner()
    data = ["--data-dir", str(tmp_path / "data")]
    names = ["Hel Ty Liny", "Zauberstab-ü", "Хель и Ты", "50% Off!", "card_007"]
    scans = tmp_path / "scans"
    scans.mkdir()
    for k, name in enumerate(names):
        cv2.imwrite(str(scans / f"{name}.png"), cp.face(cp.card_for(f"other-{k}", name)))
    bad = tmp_path / "bad"
    shutil.copytree(scans, bad)
    (bad / f"{'Ж' * 42}.png").write_bytes((scans / "card_007.png").read_bytes())  # too long for a file name
    (bad / "-dash.png").write_bytes((scans / "card_007.png").read_bytes())
    refused = runner.invoke(main, ["vision", "enroll", str(bad), "--any-id", "--kind", "scan", *data])
    assert refused.exit_code == 1 and "2 problem(s); nothing enrolled" in refused.output, refused.output
    assert "too long a card id" in refused.output and "'-dash' is not a card id" in refused.output

    enrolled = runner.invoke(main, ["vision", "enroll", str(scans), "--any-id", "--kind", "scan", *data])
    assert enrolled.exit_code == 0 and "Enrolled 5 card image(s); 5 in the index." in enrolled.output, enrolled.output
    assert runner.invoke(main, ["vision", "rebuild", *data]).exit_code == 0
    listed = runner.invoke(main, ["vision", "list", *data]).output
    assert all(f"{name}\t" in listed for name in names), listed
    photos = []
    for k, name in enumerate(names[:3]):
        photos.append(tmp_path / f"photo-{k}.jpg")
        photos[-1].write_bytes(cp.photo(cp.face(cp.card_for(f"other-{k}", name)), "easy", seed=k, size=(1024, 768)))
    result = runner.invoke(main, ["vision", "recognize", *map(str, photos), "--json", *data])
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["card_id"] for line in result.output.splitlines()] == names[:3]


def test_rules_search_and_show():
    runner = CliRunner()
    found = runner.invoke(main, ["rules", "search", "Elf hilft Kampf Stufe", "--lang", "de", "--profile", "munchkin-1.71"])
    assert found.exit_code == 0, found.output
    first = found.output.splitlines()[0]
    assert first == "Steigt der Helfer eine Stufe auf?  [helper.levels]"
    assert "Munchkin 1.71 (2014), Chiedere aiuto" in found.output
    as_json = runner.invoke(main, ["rules", "search", "sell items to reach level 10", "--json", "--limit", "1"])
    assert json.loads(as_json.output)["id"] == "items.sell-not-to-win"
    shown = runner.invoke(main, ["rules", "show", "combat.warrior-ties", "--lang", "it"])
    assert json.loads(shown.output)["title"] == "Il Guerriero vince in caso di parità"
    assert runner.invoke(main, ["rules", "show", "no.such"]).exit_code != 0
    assert runner.invoke(main, ["rules", "search", "zzzz qqqq"]).exit_code != 0


def test_the_scanning_and_card_commands_start_without_the_web_app(tmp_path):
    """`companion vision …` and `companion cards …` need no server: they do not import Flask,
    the referee's table or the card schema's validator (jsonschema), which cost a fresh
    process ~0.2 s before each answer (a CLI call per photo paid it every time)."""
    import subprocess
    import sys

    code = ("import sys\nfrom companion.cli import main\n"
            "for args in (['vision', 'list'], ['cards', 'show', 'net-troll']):\n"
            "    try:\n"
            "        main(args + ['--data-dir', sys.argv[1]], standalone_mode=False)\n"
            "    except SystemExit:\n"
            "        pass\n"
            "print(sorted(m for m in ('flask', 'jsonschema', 'companion.referee.table', 'werkzeug') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout + done.stderr


def test_recognize_loads_the_title_reader_only_when_a_title_is_read(tmp_path):
    """A photo its image names does not load the OCR engine (~0.15 s once a call, which a
    CLI call per photo would pay every time); a photo of a card with no enrolled image reads
    its title and names it, loading only the recogniser's model into onnxruntime: never
    RapidOCR's package itself, whose import alone took ~0.55 s (``title._shipped_model``)."""
    import importlib.util
    import subprocess
    import sys

    if importlib.util.find_spec("rapidocr") is None:
        if os.environ.get("CI"):
            pytest.fail("the [ocr] extra (rapidocr, onnxruntime) is missing: scripts/test must install it")
        pytest.skip("the [ocr] extra is not installed")
    data = ["--data-dir", str(tmp_path / "data")]
    records = json.loads((DOC.parent.parent / "card_db" / "data" / "munchkin-base.json").read_text())["cards"][:13]
    scans = tmp_path / "scans"
    scans.mkdir()
    for rec in records[:12]:
        cv2.imwrite(str(scans / f"{rec['id']}.png"), cp.face(cp.card_for(rec["id"], rec["names"]["en"])))
    assert CliRunner().invoke(main, ["vision", "enroll", str(scans), "--kind", "scan", *data]).exit_code == 0
    for rec, name in ((records[3], "known.jpg"), (records[12], "unenrolled.jpg")):
        (tmp_path / name).write_bytes(cp.photo(cp.face(cp.card_for(rec["id"], rec["names"]["en"])), "easy", seed=4,
                                               size=(1024, 768)))
    code = ("import json, sys\nfrom companion.cli import main\n"
            "try:\n"
            "    main(['vision', 'recognize', '--json', *sys.argv[1:]], standalone_mode=False)\n"
            "except SystemExit:\n"
            "    pass\n"
            "print(json.dumps(['onnxruntime' in sys.modules, 'rapidocr' in sys.modules]))")

    def recognised(name):
        done = subprocess.run([sys.executable, "-c", code, str(tmp_path / name), *data], capture_output=True,
                              text=True, check=True)
        answer, loaded = done.stdout.strip().splitlines()
        return json.loads(answer), json.loads(loaded)
    answer, loaded = recognised("known.jpg")
    assert answer["card_id"] == records[3]["id"] and answer["source"] == "image" and loaded == [False, False], answer
    answer, loaded = recognised("unenrolled.jpg")
    assert answer["card_id"] == records[12]["id"] and answer["source"] == "title" and loaded == [True, False], answer
