"""Reading and writing cards as JSON or CSV, so players can add expansions and house cards.

JSON is a list of card records (or ``{"cards": [...]}``). CSV has one row per card with
the everyday fields as columns (``name_de``, ``level``, ``bonus``, ``usable_by`` as
``class:cleric;race:elf`` …) and everything else — Bad Stuff, modifiers, rulings,
sources — in an ``extra`` column holding JSON, so an export re-imports to the very same
records.
"""
from __future__ import annotations

import csv
import io
import json

from .schema import LANGUAGES

# column -> (section, field, type); section None means the top level of the record
COLUMNS: dict[str, tuple[str | None, str, str]] = {
    "id": (None, "id", "str"), "deck": (None, "deck", "str"), "kind": (None, "kind", "str"),
    "set": (None, "set", "str"), "copies": (None, "copies", "int"),
    **{f"name_{lang}": ("names", lang, "str") for lang in LANGUAGES},
    **{f"text_{lang}": ("text", lang, "str") for lang in LANGUAGES},
    "level": ("monster", "level", "int"), "treasures": ("monster", "treasures", "int"),
    "levels_given": ("monster", "levels", "int"), "undead": ("monster", "undead", "bool"),
    "bonus": ("item", "bonus", "int"), "slot": ("item", "slot", "str"), "big": ("item", "big", "bool"),
    "gold": ("item", "gold", "int"), "usable_by": ("item", "usable_by", "who"),
    "not_usable_by": ("item", "not_usable_by", "who"), "run_away_bonus": ("item", "run_away_bonus", "int"),
    "level_change": ("enhancer", "level_change", "int"), "treasure_change": ("enhancer", "treasure_change", "int"),
    "mate": ("enhancer", "mate", "bool"), "curse_timing": ("curse", "timing", "str"),
    "one_shot_bonus": ("one_shot", "bonus", "int"), "one_shot_gold": ("one_shot", "gold", "int"),
    "go_up_levels": (None, "levels", "int"),
}
FIELDS = list(COLUMNS) + ["extra"]


class FormatError(ValueError):
    """The file is not readable as cards at all (not JSON, not CSV, wrong shape)."""


def detect(filename: str | None, data: bytes) -> str:
    if filename and filename.lower().endswith(".csv"):
        return "csv"
    if filename and filename.lower().endswith(".json"):
        return "json"
    return "json" if data.lstrip()[:1] in (b"[", b"{") else "csv"


def parse(data: bytes, fmt: str) -> list:
    """Records from the bytes of a JSON or CSV file."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FormatError(f"the file is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if fmt == "json":
        try:
            loaded = json.loads(text)
        except json.JSONDecodeError as exc:
            raise FormatError(f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
        if isinstance(loaded, dict) and "cards" in loaded:
            loaded = loaded["cards"]
        if not isinstance(loaded, list):
            raise FormatError('JSON must be a list of cards or {"cards": [...]}')
        return loaded
    if fmt == "csv":
        return from_csv(text)
    raise FormatError(f"unknown format {fmt!r}; use json or csv")


def from_csv(text: str) -> list[dict]:
    reader = csv.DictReader(io.StringIO(text))
    unknown = set(reader.fieldnames or []) - set(FIELDS)
    if not reader.fieldnames or "id" not in reader.fieldnames:
        raise FormatError("CSV needs a header row with at least an 'id' column")
    if unknown:
        raise FormatError(f"unknown CSV column(s): {', '.join(sorted(unknown))}")
    records = []
    for line, row in enumerate(reader, start=2):
        record: dict = {}
        extra = (row.get("extra") or "").strip()
        if extra:
            try:
                record = json.loads(extra)
            except json.JSONDecodeError as exc:
                raise FormatError(f"line {line}, column extra: not valid JSON ({exc.msg})") from None
            if not isinstance(record, dict):
                raise FormatError(f"line {line}, column extra: must be a JSON object")
        for column, (section, field, kind) in COLUMNS.items():
            raw = (row.get(column) or "").strip()
            if raw == "":
                continue
            target = record if section is None else record.setdefault(section, {})
            target[field] = _cell(raw, kind)
        records.append(record)
    return records


def _cell(raw: str, kind: str):
    if kind == "int":
        try:
            return int(raw)
        except ValueError:
            return raw  # left for the schema to report with the field's name
    if kind == "bool":
        return {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}.get(raw.lower(), raw)
    if kind == "who":
        return [dict([part.split(":", 1)]) if ":" in part else {"?": part} for part in raw.split(";") if part]
    return raw


def to_csv(records: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    for record in records:
        rest = json.loads(json.dumps(record))
        row = {}
        for column, (section, field, kind) in COLUMNS.items():
            holder = rest if section is None else rest.get(section)
            if not isinstance(holder, dict) or field not in holder:
                continue
            value = holder.pop(field)
            if kind == "who":
                value = ";".join(f"{k}:{v}" for who in value for k, v in who.items())
            elif kind == "bool":
                value = "true" if value else "false"
            row[column] = value
            if section is not None and not holder:
                del rest[section]
        row["extra"] = json.dumps(rest, ensure_ascii=False, sort_keys=True) if rest else ""
        writer.writerow(row)
    return out.getvalue()


def to_json(records: list[dict]) -> str:
    return json.dumps({"cards": records}, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
