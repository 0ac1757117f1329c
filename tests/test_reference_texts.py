"""What the title reader read on the enrolled references is kept in the data directory
(``vision.texts``): read once, by `enroll`, not per photo and process; read again when a
card is taught again or another reader reads; a damaged file is read again, never fatal."""
import json

import cv2
import numpy as np
import pytest

from bench import card_designs as cd
from vision import recognize, texts
from vision.index import Index


class CountingReader:
    """A reader that names its model and counts what it reads; it "reads" a picture's mean grey."""

    def __init__(self, model: str = "test-model"):
        self.model, self.calls = model, 0

    def __call__(self, img: np.ndarray) -> tuple[str, float]:
        self.calls += 1
        return f"grey {int(img.mean())}", 0.95


@pytest.fixture(scope="module")
def deck():
    return cd.deck("lattice", 40, seed=5)


def scan(card: cd.cp.Card) -> np.ndarray:
    return cv2.cvtColor(cd.face("lattice", card), cv2.COLOR_BGR2GRAY)


@pytest.fixture
def enrolled(tmp_path, deck):
    idx = Index(tmp_path / "vision")
    idx.add({c.id: scan(c) for c in deck})
    return idx


def _readings(idx: Index, reader) -> dict[str, tuple]:
    snap = idx.refresh().current
    return {snap.ids[row]: recognize._text_on(reader, snap, row, snap.differ_others(row)[0])
            for row in range(len(snap)) if snap.differ_others(row)[0] is not None}


def test_the_references_are_read_once_and_kept_for_every_later_process(enrolled, tmp_path):
    reader = CountingReader()
    read = recognize.read_references(enrolled, reader)
    assert read > 0 and reader.calls == read  # (the lattice deck has twins: their place is read)
    assert recognize.read_references(enrolled, reader) == 0 and reader.calls == read
    first = _readings(enrolled, reader)
    assert reader.calls == read and len(first) == read

    later = CountingReader()  # another process: a new index over the same directory, the same model
    assert _readings(Index(tmp_path / "vision"), later) == first and later.calls == 0
    assert recognize.read_references(Index(tmp_path / "vision"), later) == 0

    other = CountingReader("another-model")  # another reader reads for itself
    assert recognize.read_references(Index(tmp_path / "vision"), other) == read and other.calls == read


def test_a_card_taught_again_is_read_again(enrolled, deck):
    reader = CountingReader()
    read = recognize.read_references(enrolled, reader)
    card = next(c for c in deck if c.id in _readings(enrolled, reader))
    before = enrolled.refresh().current.reference_stamp(card.id)
    enrolled.add({card.id: np.ascontiguousarray(scan(card)[::-1, ::-1])})
    assert enrolled.refresh().current.reference_stamp(card.id) != before
    again = recognize.read_references(enrolled, reader)
    assert again >= 1 and reader.calls == read + again
    assert recognize.read_references(enrolled, reader) == 0


def test_the_readings_of_cards_taught_again_or_removed_are_let_go(enrolled, deck, tmp_path):
    """Reading the references (as `enroll` does) keeps in the file only what the index
    asks for now, of every reader: a card taught again, or removed, left its old
    readings behind for good."""
    stored = tmp_path / "vision" / texts.FILE
    reader, other = CountingReader(), CountingReader("another-model")
    read = recognize.read_references(enrolled, reader)
    assert recognize.read_references(enrolled, other) == read and len(json.loads(stored.read_text())) == 2 * read

    def cards() -> list[str]:
        return [json.loads(name)[1] for name in json.loads(stored.read_text())]
    taught = next(c for c in deck if c.id in _readings(enrolled, reader))
    enrolled.add({taught.id: np.ascontiguousarray(scan(taught)[::-1, ::-1])})
    assert recognize.read_references(enrolled, reader) == 1
    assert cards().count(taught.id) == 1 and len(cards()) == 2 * read - 1  # the new reading only, of one reader

    gone = next(c for c in deck if c.id in _readings(enrolled, reader) and c.id != taught.id)
    assert enrolled.remove(gone.id)
    recognize.read_references(enrolled, reader)
    snap = enrolled.refresh().current
    now = {json.dumps(list(recognize._text_key(snap, row, snap.differ_others(row)[0])))
           for row in range(len(snap)) if snap.differ_others(row)[0] is not None}
    assert gone.id not in cards() and cards()
    assert all(json.dumps(json.loads(name)[1:]) in now for name in json.loads(stored.read_text()))
    assert not list(stored.parent.glob(".texts-*"))

def test_a_damaged_file_is_read_again_and_a_reader_without_a_model_keeps_nothing(enrolled, tmp_path):
    stored = tmp_path / "vision" / texts.FILE
    nameless = lambda img: ("grey", 0.9)  # noqa: E731  (no ``model``: this process only)
    assert recognize.read_references(enrolled, nameless) > 0 and not stored.exists()

    reader = CountingReader()
    read = recognize.read_references(enrolled, reader)
    kept = json.loads(stored.read_text())
    assert len(kept) == read
    stored.write_text('{"half a fi')
    again = CountingReader()
    assert recognize.read_references(Index(tmp_path / "vision"), again) == read and again.calls == read
    assert json.loads(stored.read_text()) == kept
    stored.write_text(json.dumps({name: "not a reading" for name in kept}))  # valid JSON, no readings
    fixed = CountingReader()
    assert recognize.read_references(Index(tmp_path / "vision"), fixed) == read and fixed.calls == read
    assert json.loads(stored.read_text()) == kept
    assert not list(stored.parent.glob(".texts-*"))  # no temporary file left behind


def test_enroll_reads_the_references_once_through_the_cli(tmp_path, deck, ocr):
    """`companion vision enroll` reads them with the [ocr] extra's reader, and says so;
    enrolling again reads only the card taught again; after `rebuild` none is left unread."""
    from click.testing import CliRunner

    from companion.cli import main

    scans = tmp_path / "scans"
    scans.mkdir()
    for c in deck:
        cv2.imwrite(str(scans / f"{c.id}.png"), scan(c))
    data = ["--data-dir", str(tmp_path / "data")]
    first = CliRunner().invoke(main, ["vision", "enroll", str(scans), "--kind", "scan", "--any-id", *data])
    assert first.exit_code == 0, first.output
    kept = json.loads((tmp_path / "data" / "vision" / texts.FILE).read_text())
    assert f"Read the text where twins differ on {len(kept)} reference(s)" in first.output and len(kept) >= 2
    assert all(key.startswith(json.dumps([ocr.model])[:-1]) for key in kept)

    taught = json.loads(next(iter(kept)))[1]  # a card with a place where its twins differ
    again = CliRunner().invoke(main, ["vision", "enroll", str(scans / f"{taught}.png"), "--kind", "scan",
                                      "--any-id", *data])
    assert again.exit_code == 0, again.output
    read = [line for line in again.output.splitlines() if line.startswith("Read the text")]
    assert read == ["Read the text where twins differ on 1 reference(s), for recognition to compare."]

    rebuilt = CliRunner().invoke(main, ["vision", "rebuild", *data])
    assert rebuilt.exit_code == 0, rebuilt.output
    assert recognize.read_references(Index(tmp_path / "data" / "vision"), ocr) == 0  # nothing left to read
