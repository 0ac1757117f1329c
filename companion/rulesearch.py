"""Plain-language search over the rule entries, in every supported language.

"can I sell items to get to level 10" or "Elf hilft Kampf Stufe" should find the right
entries first. The entries (title, statement, the words players use) are indexed in an
SQLite FTS5 table, one row per entry and language, after Snowball stemming in that row's
language, so "helping", "helps" and "helper" meet. A question is tried in every language
(a German question on an English phone still works), each word expanded with the
language's synonyms and, when it is not a word of the rulebook, with its closest words
(typos); BM25 ranks, with the title weighing most. The index is built in memory once per
process: the entries are static data that ship with the app.
"""
from __future__ import annotations

import re
import sqlite3
import threading
import tomllib
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import snowballstemmer
from rapidfuzz import fuzz, process

from .referee.profiles import DEFAULT_PROFILE, PROFILES
from .referee.rules import LANGUAGES, RULES, TEXTS

STEMMERS = {"en": "english", "de": "german", "fr": "french", "nl": "dutch", "it": "italian", "ru": "russian"}
SYNONYMS_FILE = Path(__file__).parent / "referee" / "rulebook" / "synonyms.toml"
#: Column weights for BM25: title, statement, players' words.
WEIGHTS = (4.0, 1.0, 2.0)
#: A query word unknown to the rulebook is replaced by rulebook words at least this similar (0-100).
TYPO_SIMILARITY = 80
PREFERRED_LANGUAGE_BOOST = 1.25
QUERY_MAX = 200
WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Hit:
    rule_id: str
    score: float  # higher is better
    language: str  # the language whose words matched best


def _fold(text: str) -> str:
    """Lower case without accents, as FTS5's unicode61 tokenizer with remove_diacritics sees it."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).replace("ё", "е")


class RuleIndex:
    """The FTS5 index of every entry in every language, and the question parser."""

    def __init__(self):
        with open(SYNONYMS_FILE, "rb") as fh:
            raw = tomllib.load(fh)
        self.stopwords = {lang: set(WORD.findall(_fold(raw[lang].get("_stopwords", "")))) for lang in LANGUAGES}
        self.synonyms = {lang: {_fold(k): [_fold(v) for v in vs] for k, vs in raw[lang].items() if k != "_stopwords"}
                         for lang in LANGUAGES}
        self.stemmers = {lang: snowballstemmer.stemmer(STEMMERS[lang]) for lang in LANGUAGES}
        self.lock = threading.Lock()
        self.db = sqlite3.connect(":memory:", check_same_thread=False)
        self.db.execute("CREATE VIRTUAL TABLE entries USING fts5(rule_id UNINDEXED, lang UNINDEXED, title, body, terms,"
                        " tokenize = 'unicode61 remove_diacritics 2')")
        rows = []
        for lang, entries in TEXTS.items():
            for rule_id, words in entries.items():
                body = " ".join([words["text"], *words["differs"].values()])
                rows.append((rule_id, lang, self.stem(lang, words["title"]), self.stem(lang, body),
                             self.stem(lang, words["terms"])))
        self.db.executemany("INSERT INTO entries VALUES (?,?,?,?,?)", rows)
        self.vocabulary = {lang: sorted({t for r in rows if r[1] == lang for col in r[2:] for t in col.split()})
                           for lang in LANGUAGES}
        self.known = {lang: set(words) for lang, words in self.vocabulary.items()}

    def stem(self, lang: str, text: str) -> str:
        """The text as indexed: folded words, each replaced by its stem in ``lang``."""
        words = WORD.findall(_fold(text))
        return " ".join(self.stemmers[lang].stemWords(words))

    def _groups(self, lang: str, question: str) -> list[set[str]]:
        """One set of alternative index terms per meaningful word of the question."""
        groups = []
        for word in WORD.findall(_fold(question)):
            if word in self.stopwords[lang] or (len(word) < 2 and not word.isdigit()):
                continue
            variants = {word, *self.synonyms[lang].get(word, [])}
            stems = {stem for v in variants for stem in self.stem(lang, v).split()}
            if not stems & self.known[lang] and len(word) >= 4:
                stem = self.stemmers[lang].stemWord(word)
                near = process.extract(stem, self.vocabulary[lang], scorer=fuzz.ratio, limit=3,
                                       score_cutoff=TYPO_SIMILARITY)
                stems |= {term for term, _, _ in near}
            stems &= self.known[lang]
            if stems:
                groups.append(stems)
        return groups

    def search(self, question: str, lang: str = "en", limit: int = 5, profile_id: str | None = None) -> list[Hit]:
        """The entries that best answer ``question``, best first; ``lang`` is preferred on ties, and the
        entries of the game ``profile_id`` plays (the card game by default) first."""
        question = question[:QUERY_MAX]
        best: dict[str, Hit] = {}
        for language in LANGUAGES:
            groups = self._groups(language, question)
            if not groups:
                continue
            match = " OR ".join("(" + " OR ".join(f'"{t}"' for t in sorted(g)) + ")" for g in groups)
            with self.lock:
                rows = self.db.execute(
                    "SELECT rule_id, bm25(entries, 0, 0, ?, ?, ?), title || ' ' || body || ' ' || terms FROM entries "
                    "WHERE entries MATCH ? AND lang = ?", [*WEIGHTS, match, language]).fetchall()
            for rule_id, rank, text in rows:
                # bm25() is lower for better matches; as a score it is scaled by the share of the
                # question's words the entry answers, so that an entry does not win on one rare word.
                words = set(text.split())
                answered = sum(1 for g in groups if g & words) / len(groups)
                score = -rank * (0.5 + answered) * (PREFERRED_LANGUAGE_BOOST if language == lang else 1.0)
                if rule_id not in best or score > best[rule_id].score:
                    best[rule_id] = Hit(rule_id, score, language)
        return _for_game(list(best.values()), question, profile_id)[:limit]


#: How much an entry of the table's own game weighs against one of the other game.
OWN_GAME_BOOST = 2.0


def _for_game(hits: list[Hit], question: str, profile_id: str | None) -> list[Hit]:
    """The game's entries first: at a Munchkin Quest table (or when the question names Quest) "does the
    monster win a tie?" is answered from the board game's entries, elsewhere from the card game's."""
    if "quest" in WORD.findall(_fold(question)):
        game = "munchkin-quest"
    else:
        game = PROFILES[profile_id or DEFAULT_PROFILE].game

    def weighed(hit: Hit) -> Hit:
        games = {PROFILES[p].game for p in RULES[hit.rule_id].sources}
        return Hit(hit.rule_id, hit.score * (OWN_GAME_BOOST if game in games else 1 / OWN_GAME_BOOST), hit.language)

    return sorted((weighed(h) for h in hits), key=lambda h: (-h.score, h.rule_id))


@lru_cache(maxsize=1)
def index() -> RuleIndex:
    """The process's rule index (built on first use, ~50 ms)."""
    return RuleIndex()


def search(question: str, lang: str = "en", profile_id: str | None = None, limit: int = 5) -> list[dict]:
    """Search answers as the pages and the API show them: the entry in ``lang``, its citation
    (in the table's edition when ``profile_id`` is given) and its related entries' titles."""
    out = []
    for hit in index().search(question, lang, limit, profile_id):
        entry = RULES[hit.rule_id].as_dict(lang, profile_id)
        entry["related"] = [{"id": r, "title": RULES[r].as_dict(lang)["title"]} for r in RULES[hit.rule_id].related]
        entry["score"] = round(hit.score, 3)
        out.append(entry)
    return out
