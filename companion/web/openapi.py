"""The OpenAPI 3.1 description of ``/api/v1``, served at ``/api/v1/openapi.json``.

Written as data next to the API it describes; a test checks that it is a valid OpenAPI
document and that every API route appears in it, so the two cannot drift apart.
"""
from __future__ import annotations

from card_db.schema import KINDS

from ..referee.combat import INPUT_SCHEMA
from ..referee.quest_fight import SCHEMA as QUEST_FIGHT_SCHEMA
from ..referee.profiles import OPTIONS, PROFILES, TOP_LEVEL_RANGE
from ..referee.rules import LANGUAGES
from ..referee.catalogue import CATALOGUE, json_schema
from ..referee.table import SEXES

VERSION = "1.0.0"


def _action_ref(name: str) -> str:
    """The component name of an action's body: ``level.up`` → ``Action_level_up``."""
    return "Action_" + name.replace(".", "_")


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict, description: str) -> dict:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


ERRORS = {
    "400": _json(_ref("Error"), "Malformed request: not JSON, a missing or mistyped field."),
    "401": _json(_ref("Error"), "No bearer token."),
    "403": _json(_ref("Error"), "The token holds no seat at this table, or only the host may do this."),
    "404": _json(_ref("Error"), "No such table, player or change."),
    "409": _json(_ref("Error"), "Conflicts with the table's state (name taken, table full, game over, stale expected_version)."),
    "422": _json(_ref("Error"), "Refused by a rule of the game; `rule` names it."),
}


def _errors(*codes: str) -> dict:
    return {code: ERRORS[code] for code in codes}


#: A name: 1 to 24 characters with something visible, no control characters.
NAME = {"type": "string", "minLength": 1, "maxLength": 24, "pattern": "^[^\\x00-\\x1f\\x7f-\\x9f]*\\S[^\\x00-\\x1f\\x7f-\\x9f]*$"}
TABLE_PARAM = {"name": "table_id", "in": "path", "required": True, "schema": {"type": "string"}}
AUTH = [{"seatToken": []}]
RULE_PARAMS = [{"name": "lang", "in": "query", "schema": {"enum": list(LANGUAGES), "default": "en"}},
               {"name": "profile", "in": "query", "description": "cite this edition's book first",
                "schema": {"enum": list(PROFILES)}}]


def spec() -> dict:
    seated = _json({"type": "object", "required": ["table", "seat", "token"], "properties": {
        "table": _ref("Table"), "seat": {"type": "string"},
        "token": {"type": "string", "description": "Bearer token for this seat; keep it secret."},
        "join_url": {"type": "string"}, "spectator_url": {"type": "string"}}}, "Seated; the token is shown only once.")
    changed = _json({"type": "object", "properties": {"table": _ref("Table"), "event": _ref("Event")}},
                    "Recorded; the new state and the event.")
    return {
        "openapi": "3.1.0",
        "info": {"title": "Table Referee API", "version": VERSION,
                 "description": "Tables, seats, actions with the referee's checks, history and undo. "
                                "Refusals answer 4xx with {error, rule}."},
        "servers": [{"url": "/"}],
        "paths": {
            "/api/v1/openapi.json": {"get": {"summary": "This document", "responses": {"200": {"description": "OpenAPI document"}}}},
            "/api/v1/health": {"get": {"summary": "Health check for a proxy or monitor: the process answers and "
                                                  "its database reads",
                                       "responses": {"200": _json({"type": "object", "properties": {
                                           "status": {"const": "ok"}}}, "Healthy")}}},
            "/api/v1/profiles": {"get": {"summary": "Rule profiles (editions)",
                                         "responses": {"200": _json({"type": "object"}, "Profiles and the default")}}},
            "/api/v1/rules": {"get": {"summary": "Every rule entry (enforced rules, disputes, how the game runs), "
                                                 "in a language, cited per edition",
                                      "parameters": RULE_PARAMS,
                                      "responses": {"200": _json({"type": "object", "properties": {
                                          "rules": {"type": "array", "items": _ref("Rule")}}}, "Rule entries"),
                                          **_errors("400")}}},
            "/api/v1/rules/search": {"get": {
                "summary": "Plain-language search over the rule entries in any of the six languages (FTS5, stemming, "
                           "synonyms, typos); best first",
                "parameters": [{"name": "q", "in": "query", "required": True,
                                "schema": {"type": "string", "minLength": 1, "maxLength": 200}},
                               {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 20,
                                                                           "default": 5}}, *RULE_PARAMS],
                "responses": {"200": _json({"type": "object", "properties": {
                    "query": {"type": "string"}, "language": {"type": "string"}, "profile": {"type": ["string", "null"]},
                    "results": {"type": "array", "items": _ref("Rule")}}}, "Answers, best first"), **_errors("400")}}},
            "/api/v1/rules/{rule_id}": {"get": {
                "summary": "One rule entry",
                "parameters": [{"name": "rule_id", "in": "path", "required": True, "schema": {"type": "string"}},
                               *RULE_PARAMS],
                "responses": {"200": _json(_ref("Rule"), "The entry"), **_errors("400", "404")}}},
            "/api/v1/tables": {"post": {
                "summary": "Create a table; the creator becomes host",
                "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("CreateTable")}}},
                "responses": {"201": seated, **_errors("400")}}},
            "/api/v1/join/{join_token}": {"post": {
                "summary": "Take a seat with the table's join token (from the QR code)",
                "parameters": [{"name": "join_token", "in": "path", "required": True, "schema": {"type": "string"}}],
                "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("Player")}}},
                "responses": {"201": seated, **_errors("400", "404", "409")}}},
            "/api/v1/tables/{table_id}": {"get": {
                "summary": "The table's state", "security": AUTH, "parameters": [TABLE_PARAM],
                "responses": {"200": _json({"type": "object", "properties": {"table": _ref("Table"), "seat": {"type": "string"}}}, "State"),
                              **_errors("401", "403", "404")}}},
            "/api/v1/tables/{table_id}/actions": {"post": {
                "summary": "Perform an action (the same checks as the phone pages)", "security": AUTH,
                "parameters": [TABLE_PARAM, {"name": "Idempotency-Key", "in": "header", "required": False,
                                             "description": "Any 1-128 visible ASCII characters, new for each tap: a "
                                             "retry with the same key (the answer was lost) applies the action once "
                                             "and answers the change the first request made.",
                                             "schema": {"type": "string", "minLength": 1, "maxLength": 128}}],
                "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("Action")}}},
                "responses": {"200": changed, **_errors("400", "401", "403", "404", "409", "422")}}},
            "/api/v1/tables/{table_id}/charity": {"get": {
                "summary": "End of turn: how many of `hand` cards go over the limit, and to whom (nothing is recorded)",
                "security": AUTH, "parameters": [TABLE_PARAM, {"name": "hand", "in": "query", "required": True,
                                                              "schema": {"type": "integer", "minimum": 0, "maximum": 100}}],
                "responses": {"200": _json({"type": "object", "properties": {
                    "limit": {"type": "integer"}, "excess": {"type": "integer"}, "discard": {"type": "boolean"},
                    "shares": {"type": "array", "items": {"type": "object", "properties": {
                        "seat": {"type": "string"}, "name": {"type": "string"}, "cards": {"type": "integer"}}}},
                    "citation": {"type": "string"}}}, "The verdict"), **_errors("400", "401", "403")}}},
            "/api/v1/tables/{table_id}/history": {"get": {
                "summary": "Every change, newest first", "security": AUTH, "parameters": [TABLE_PARAM],
                "responses": {"200": _json({"type": "object", "properties": {"events": {"type": "array", "items": _ref("Event")}}}, "History"),
                              **_errors("401", "403", "404")}}},
            "/api/v1/tables/{table_id}/house-rulings": {"get": {
                "summary": "The host's house rulings: actions let through against a rule, with the rule and who ruled",
                "security": AUTH, "parameters": [TABLE_PARAM],
                "responses": {"200": _json({"type": "object", "properties": {"rulings": {"type": "array", "items": {
                    "type": "object", "properties": {
                        "seq": {"type": "integer"}, "rule": {"type": "string"}, "rule_title": {"type": "string"},
                        "citation": {"type": "string"}, "waived": {"type": "array", "items": {"type": "string"}},
                        "by": {"type": "string"}, "by_name": {"type": ["string", "null"]}, "summary": {"type": "string"},
                        "reason": {"type": ["string", "null"]}, "created_at": {"type": "string"},
                        "undone_by": {"type": ["integer", "null"]}}}}}}, "House rulings, oldest first"),
                              **_errors("401", "403", "404")}}},
            "/api/v1/tables/{table_id}/history/{seq}/undo": {"post": {
                "summary": "Undo a change (its author or the host)", "security": AUTH,
                "parameters": [TABLE_PARAM, {"name": "seq", "in": "path", "required": True, "schema": {"type": "integer"}}],
                "requestBody": {"required": False, "content": {"application/json": {"schema": {
                    "type": "object", "properties": {"reason": {"type": "string", "maxLength": 140},
                                                     "expected_version": {"type": "integer"}}}}}},
                "responses": {"200": changed, **_errors("400", "401", "403", "404", "409", "422")}}},
            "/api/v1/tables/{table_id}/stream": {"get": {
                "summary": "Server-sent events: `event: state` with the table JSON at every new version",
                "security": AUTH, "parameters": [TABLE_PARAM],
                "responses": {"200": {"description": "text/event-stream",
                                      "content": {"text/event-stream": {"schema": {"type": "string"}}}},
                              **_errors("401", "403")}}},
            "/api/v1/cards": {"get": {
                "summary": "Type-ahead card search: any name, any language, typos and accents forgiven",
                "parameters": [
                    {"name": "q", "in": "query", "required": False, "schema": {"type": "string", "maxLength": 100}},
                    {"name": "deck", "in": "query", "required": False, "schema": {"enum": ["door", "treasure"]}},
                    {"name": "kind", "in": "query", "required": False, "schema": {"enum": list(KINDS)}},
                    {"name": "limit", "in": "query", "required": False,
                     "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}}],
                "responses": {"200": _json({"type": "object", "properties": {"cards": {"type": "array", "items": {
                    "type": "object", "properties": {
                        "id": {"type": "string"}, "name": {"type": "string"}, "matched": {"type": "string"},
                        "lang": {"type": "string"}, "score": {"type": "number"}, "deck": {"type": "string"},
                        "kind": {"type": "string"}, "summary": {"type": "string"}}}}}}, "Best matches first"),
                              **_errors("400")}}},
            "/api/v1/cards/{card_id}": {"get": {
                "summary": "One card's full record (the card schema: numbers, names, text, rulings, sources)",
                "parameters": [{"name": "card_id", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {"200": _json({"type": "object", "properties": {"card": {"type": "object"}}}, "The card"),
                              **_errors("404")}}},
            "/api/v1/combat/evaluate": {"post": {
                "summary": "The referee without a table: judge a complete fight (card ids or inline numbers)",
                "description": "A card-game fight (schema Fight), or a Munchkin Quest fight with "
                               "\"profile\": \"munchkin-quest\" (schema QuestFight): dice on both sides, ties to the "
                               "monsters, a die per monster to flee; dice left out are rolled by the app "
                               "(named in rolled_by_app). See docs/api.md.",
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": {"oneOf": [_ref("Fight"), _ref("QuestFight")]}}}},
                "responses": {"200": _json({"type": "object", "properties": {
                    "players": {"type": "object"}, "monsters": {"type": "object"},
                    "outcome": {"enum": ["win", "lose"]}, "margin": {"type": "integer"}, "why": {"type": "string"},
                    "levels": {"type": "object"}, "treasures": {"type": "integer"}, "wins_game": {"type": "boolean"},
                    "run_away": {"type": "array"}}}, "The verdict with every line's source and rule"),
                              **_errors("400", "404")}}},
            "/api/v1/vision/recognize": {"post": {
                "summary": "Recognise the card in a photo (JPEG, PNG or WebP, at most 12 MB and 50 megapixels)",
                "description": "The photo as the body (Content-Type image/jpeg, image/png or image/webp) or as the "
                               "multipart field `photo`. Answers the card when the match is confident, else "
                               "`card_id` null with the `reason`; the best candidates either way.",
                "parameters": [{"name": "lang", "in": "query", "schema": {"type": "string", "default": "en"},
                                "description": "Language of the card names (English where a name is missing)"}],
                "requestBody": {"required": True, "content": {
                    "image/jpeg": {"schema": {"type": "string", "format": "binary"}},
                    "image/png": {"schema": {"type": "string", "format": "binary"}},
                    "image/webp": {"schema": {"type": "string", "format": "binary"}},
                    "multipart/form-data": {"schema": {"type": "object", "required": ["photo"], "properties": {
                        "photo": {"type": "string", "format": "binary"}}}}}},
                "responses": {"200": _json(_ref("Recognition"), "The recognised card, or why there is none"),
                              "400": _json(_ref("ImageError"), "Empty or damaged image (reason empty, corrupt)"),
                              "413": _json(_ref("ImageError"), "Too many bytes or pixels (reason too_large, "
                                                               "too_many_pixels)"),
                              "415": _json(_ref("ImageError"), "Not a JPEG, PNG or WebP image (reason not_an_image)"),
                              "422": _json(_ref("ImageError"), "Too small or too long and thin for a card (reason "
                                                               "too_small, bad_aspect)"),
                              "503": _json(_ref("ImageError"), "The scanner is busy (reason busy, with Retry-After), "
                                                               "or its index needs `companion vision rebuild` "
                                                               "(reason index_outdated)")}}},
            "/api/v1/spectate/{token}": {"get": {
                "summary": "Read-only state by spectator token",
                "parameters": [{"name": "token", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {"200": _json({"type": "object", "properties": {"table": _ref("Table")}}, "State"),
                              **_errors("404")}}},
        },
        "components": {
            "securitySchemes": {"seatToken": {"type": "http", "scheme": "bearer",
                                              "description": "The token from create or join."}},
            "schemas": {
                "Fight": {k: v for k, v in INPUT_SCHEMA.items() if k != "$schema"},
                "QuestFight": QUEST_FIGHT_SCHEMA,
                "Recognition": {"type": "object", "required": ["card_id", "reason", "candidates"], "properties": {
                    "card_id": {"type": ["string", "null"], "description": "Set only for a confident match"},
                    "name": {"type": ["string", "null"]},
                    "reason": {"enum": [None, "no_card", "too_blurry", "cut_off", "no_confident_match",
                                         "nothing_enrolled"]},
                    "message": {"type": "string"},
                    "candidates": {"type": "array", "items": {"type": "object", "properties": {
                        "card_id": {"type": "string"}, "name": {"type": ["string", "null"]},
                        "confidence": {"type": "number", "minimum": 0, "maximum": 1,
                                       "description": "The weakest of the calibrated checks; 0.5 or more names the card"},
                        "score": {"type": "number", "description": "Correlation of the aligned card with its reference"},
                        "inliers": {"type": "integer", "description": "Features the homography verified"},
                        "deck": {"type": ["string", "null"]},
                        "kind": {"type": ["string", "null"]}}}},
                    "elapsed_ms": {"type": "number"},
                    "corners": {"type": ["array", "null"], "description": "The card's corners in the photo (px)"},
                    "source": {"enum": [None, "image", "title", "image+title"],
                               "description": "What named the card: the enrolled image, the title read (OCR), or both"},
                    "title": {"type": ["string", "null"],
                              "description": "The title as read, when it was read; or the letters read (case folded) "
                                             "where the named card's twins differ, when those named it or refused it"}}},
                "ImageError": {"type": "object", "required": ["error", "reason"], "properties": {
                    "error": {"type": "string"},
                    "reason": {"enum": ["empty", "corrupt", "not_an_image", "too_large", "too_many_pixels",
                                        "too_small", "bad_aspect", "busy", "index_outdated"]}}},
                "Error": {"type": "object", "required": ["error"], "properties": {
                    "error": {"type": "string"}, "rule": {"type": ["string", "null"]},
                    "citation": {"type": "string"}, "rule_summary": {"type": "string"},
                    "citations": {"type": "array", "items": {"type": "string"},
                                  "description": "the rule in every edition's book that has it"}}},
                "Player": {"type": "object", "required": ["name", "sex"], "properties": {
                    "name": NAME, "sex": {"enum": list(SEXES)}}},
                "CreateTable": {"type": "object", "required": ["name", "host"], "properties": {
                    "name": NAME, "profile": {"enum": list(PROFILES), "default": "munchkin-1.6"}, "host": _ref("Player"),
                    "options": _ref("Options")}},
                "Rule": {"type": "object", "required": ["id", "kind", "title", "summary", "citation"], "properties": {
                    "id": {"type": "string"}, "kind": {"enum": ["enforced", "dispute", "reference"]},
                    "title": {"type": "string"}, "summary": {"type": "string"},
                    "citation": {"type": "string", "description": "in the asked edition's book, else the first that has it"},
                    "sources": {"type": "array", "items": {"type": "object", "properties": {
                        "profile": {"type": "string"}, "citation": {"type": "string"}}}},
                    "differs": {"type": "array", "items": {"type": "object", "properties": {
                        "profile": {"type": "string"}, "note": {"type": "string"}}}},
                    "related": {"type": "array", "description": "ids, or {id, title} in search answers"},
                    "language": {"type": "string"}, "score": {"type": "number", "description": "search answers only"}}},
                "Options": {"type": "object", "additionalProperties": False, "description": "; ".join(
                    f"{k}: {v}" for k, v in OPTIONS.items()), "properties": {
                        **{k: {"type": "boolean"} for k in OPTIONS if k != "top_level"},
                        "top_level": {"type": "integer", "minimum": TOP_LEVEL_RANGE[0], "maximum": TOP_LEVEL_RANGE[1]}}},
                "Action": {"oneOf": [_ref(_action_ref(name)) for name in CATALOGUE],
                           "discriminator": {"propertyName": "action",
                                             "mapping": {name: f"#/components/schemas/{_action_ref(name)}" for name in CATALOGUE}},
                           "description": "One action of the catalogue; each names its parameters, who may ask for it "
                                          "and in which phases of the turn."},
                **{_action_ref(name): json_schema(name) for name in CATALOGUE},
                "Table": {"type": "object", "properties": {
                    "id": {"type": "string"}, "name": {"type": "string"}, "profile_id": {"type": "string"},
                    "profile": {"type": "object"}, "version": {"type": "integer"},
                    "host": {"type": ["string", "null"]}, "winner": {"type": ["string", "null"]},
                    "winners": {"type": "array", "items": {"type": "string"},
                                "description": "every seat that won (two in a shared or joint victory)"},
                    "combat": {"type": ["object", "null"], "description": "the fight on now: {fighter: seat}"},
                    "verdict": {"type": ["object", "null"], "description": "the fight's verdict as POST /api/v1/combat/"
                                "evaluate answers it (both totals with every line's source and rule, outcome, "
                                "rewards); null with no fight or no monster yet"},
                    "turn": {"type": ["object", "null"], "description": "whose turn: {seat, number, phase}; phase is start "
                                                       "(door shut), door (no monster: look for trouble or loot), fight, "
                                                       "charity (the turn's fight or loot is done)"},
                    "players": {"type": "array", "items": {"type": "object", "properties": {
                        "seat": {"type": "string"}, "name": {"type": "string"}, "sex": {"enum": list(SEXES)},
                        "level": {"type": "integer"}, "strength": {"type": "integer"},
                        "races": {"type": "array"}, "classes": {"type": "array"}, "half_breed": {"type": "boolean"},
                        "super_munchkin": {"type": "boolean"}, "items": {"type": "array"}, "curses": {"type": "array"},
                        "strength_breakdown": {"type": "array", "description": "one line per source: level, items, curses"},
                        "not_counting": {"type": "array", "description": "items that do not count, with reason, rule, citation"},
                        "pending": {"type": "array", "description": "curse effects waiting for the next combat"},
                        "dead": {"type": "boolean", "description": "dead until the next player's turn begins: no cards, no levels"},
                        "choices": {"type": "array", "description": "what a curse or Bad Stuff left to pick: {uid, source, "
                                    "chooser, effect, count, options}; choice.make answers it"},
                        "problems": {"type": "array", "description": "rules the character breaks now (e.g. Big items after losing Dwarf)"}}}}}},
                "Event": {"type": "object", "properties": {
                    "seq": {"type": "integer"}, "kind": {"type": "string"}, "actor": {"type": ["string", "null"]},
                    "payload": {"type": "object"}, "reason": {"type": ["string", "null"]}, "at": {"type": "string"},
                    "undoes": {"type": ["integer", "null"]}, "undone_by": {"type": ["integer", "null"]},
                    "undoable": {"type": "boolean"}, "text": {"type": "string"}}},
            },
        },
    }
