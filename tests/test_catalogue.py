"""The action catalogue: one declaration per action that parsing, guards, the OpenAPI document,
the pages and docs/api.md all read."""
import os
import re
from pathlib import Path

import pytest

from companion.referee import catalogue, table  # noqa: F401  (table registers the deciding functions)
from companion.referee.catalogue import CATALOGUE
from companion.referee.rules import Refused
from companion.web.openapi import spec

DOC = Path(__file__).parents[1] / "docs" / "api.md"
START, END = "<!-- actions: generated from companion/referee/catalogue.py -->", "<!-- /actions -->"


def test_every_action_is_decided_and_declared_with_a_summary():
    for name, declared in CATALOGUE.items():
        assert declared.decide is not None, name
        assert declared.summary.endswith((".", ")")), name


def test_every_parameter_the_server_accepts_is_in_the_openapi_document():
    schemas = spec()["components"]["schemas"]
    for name, declared in CATALOGUE.items():
        documented = schemas["Action_" + name.replace(".", "_")]["properties"]
        assert set(declared.params) <= set(documented), name
        assert documented["action"] == {"const": name}


def _example(param):
    return {"int": param.min if param.min is not None else 1, "number": 1.5, "bool": "true", "list": ["x"],
            "object": {}, "str": (param.enum or ["abc"])[0]}[param.kind]


@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_parsing_accepts_exactly_the_declared_parameters(name):
    declared = CATALOGUE[name]
    raw = {key: _example(param) for key, param in declared.params.items()}
    assert set(catalogue.parse(name, raw)) == set(raw)
    with pytest.raises(Refused, match="Unknown parameter"):
        catalogue.parse(name, {**raw, "nonsense": "1"})


@pytest.mark.parametrize("raw, words", [({"seat": 7}, "seat must be text"), ({"seat": "x" * 41}, "at most 40"),
                                        ({"card": ["a"]}, "card must be text")])
def test_parameters_are_typed_and_limited(raw, words):
    with pytest.raises(Refused, match=words):
        catalogue.parse("level.up", raw)


def actions_table() -> str:
    rows = ["| action | parameters | who | turn phases |", "|---|---|---|---|"]
    for name, declared in CATALOGUE.items():
        params = "; ".join(f"`{key}` ({param.kind}{', ' + '/'.join(map(str, param.enum)) if param.enum else ''})"
                           for key, param in declared.params.items()) or "—"
        rows.append(f"| `{name}` | {params} | {declared.who} | {', '.join(declared.phases or ()) or 'any'} |")
        rows.append(f"| | {declared.summary} | | |")
    return "\n".join(rows)


def test_docs_api_lists_the_catalogue():
    text = DOC.read_text()
    block = f"{START}\n{actions_table()}\n{END}"
    fresh = re.sub(re.escape(START) + ".*?" + re.escape(END), lambda _: block, text, flags=re.S)
    if os.environ.get("UPDATE_DOCS"):
        DOC.write_text(fresh)
    assert START in text and text == fresh, "docs/api.md is stale: run UPDATE_DOCS=1 pytest tests/test_catalogue.py"
