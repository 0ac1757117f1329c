"""How much image work one process does at once, and giving the memory back afterwards.

Decoding and recognising a photo is the app's only heavy work: up to ~160 MB for a
40-megapixel PNG, and 100–300 ms of CPU. Eight phones sending large photos at once must not
add up to gigabytes, so every decode and recognition takes one of ``SLOTS`` slots first;
the rest wait in line, at most ``QUEUE`` of them and at most ``WAIT`` seconds each, and are
then told to try again (``Busy``, which the web layer answers with 503 and ``Retry-After``)
rather than piling up uploads in memory.

After a large image the buffers are freed, but glibc keeps freed memory in its heaps (the
worker "kept 3 GB" after eight large photos); ``release_memory`` hands it back to the
system with ``malloc_trim(0)`` where that exists (glibc on Linux; elsewhere nothing).

Under gevent (``companion serve``: every phone a greenlet on one thread) the work itself runs
on a native thread of gevent's pool (``run``): OpenCV, NumPy and Pillow let go of the GIL
while they work, so the other phones are served meanwhile instead of waiting a second for a
large photo. The semaphore is made on first use, after gevent has patched the standard
library, so waiting in line yields to the other phones too. One rule follows for the work
``run`` is given: it may not wait on a lock that gevent patched (two native threads waiting
on one gevent lock hang), so it takes no index lock (callers pass the index's snapshot in)
and guards what it shares with ``lock()``.

One photo's work is shared by two threads (``share``): its pieces — describing the photo
and each outline, looking up a word table, checking one card — are independent, and a phone
waits for the photo. So NumPy's BLAS (OpenBLAS) is held to one thread: its own threads
wait for work by spinning on the same two cores, which made a photo a third slower
(threadpoolctl sets the limit in the library already loaded).
"""
from __future__ import annotations

import ctypes
import functools
import importlib
import itertools
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from threadpoolctl import threadpool_limits

SLOTS = 2          # decodes and recognitions at once per process (each shares its work with one helper: ``share``)
QUEUE = 8          # more waiting than this: busy at once
WAIT = 10.0        # seconds a photo may wait for a slot (a recognition takes 0.1–0.3 s)

importlib.import_module("numpy")        # its BLAS comes with it: only a library loaded can be limited
threadpool_limits(1, user_api="blas")   # for the whole process: its only heavy work is image work

T = TypeVar("T")
R = TypeVar("R")
_state_lock = threading.Lock()
_slots: threading.BoundedSemaphore | None = None
_waiting = 0


class Busy(RuntimeError):
    """Every slot stayed taken: try again in a moment. ``reason`` is ``busy`` (web: 503)."""

    reason = "busy"
    retry_after = 2

    def __init__(self):
        super().__init__("The scanner is busy with other photos; try again in a moment.")


def run(work: Callable[..., T], *args) -> T:
    """``work(*args)`` in one of the slots (``slot``); under gevent on a native thread."""
    with slot():
        pool = _native_threads()
        return work(*args) if pool is None else pool.apply(work, args)


@contextmanager
def slot(wait: float | None = None) -> Iterator[None]:
    """Hold one of the ``SLOTS`` while the block runs; raise ``Busy`` if none frees in time."""
    global _slots, _waiting
    with _state_lock:
        if _slots is None:
            _slots = threading.BoundedSemaphore(SLOTS)
        slots = _slots
    if not slots.acquire(blocking=False):
        with _state_lock:
            if _waiting >= QUEUE:
                raise Busy()
            _waiting += 1
        try:
            got = slots.acquire(timeout=WAIT if wait is None else wait)
        finally:
            with _state_lock:
                _waiting -= 1
        if not got:
            raise Busy()
    try:
        yield
    finally:
        slots.release()


def share(work: Callable[[T], R], items: list[T]) -> list[R]:
    """``[work(x) for x in items]``, the items shared with one more native thread: each
    thread takes the next item until none is left (the pieces of a photo's work take 1–10
    ms each and vary), and the answers come back in the items' order.

    A photo is checked against a dozen to forty cards, one at a time on one core, while a
    phone waits; OpenCV lets go of the GIL in each check's searches, fits and warps, so two
    threads answer it ~1.4 times sooner. The helper is a native thread under gevent too
    (the original ``_thread``), so ``work`` follows ``run``'s rule. An error in either
    thread is raised here once both have stopped."""
    if len(items) < 2:
        return [work(x) for x in items]
    start, new_lock = _original("_thread", "start_new_thread"), _original("_thread", "allocate_lock")
    answers: list = [None] * len(items)
    errors: list[BaseException] = []
    taken = itertools.count()  # next() on it is atomic under the GIL: each item is taken once

    def take_turns() -> None:
        try:
            while (i := next(taken)) < len(items) and not errors:
                answers[i] = work(items[i])
        except BaseException as e:  # noqa: BLE001 (re-raised in the calling thread)
            errors.append(e)

    done = new_lock()
    done.acquire()

    def helper() -> None:
        try:
            take_turns()
        finally:
            done.release()
    start(helper, ())
    take_turns()
    done.acquire()  # the helper has finished
    if errors:
        raise errors[0]
    return answers


def together(*tasks: Callable[[], R]) -> list[R]:
    """Each of ``tasks`` called, shared as ``share`` shares items; their answers in order."""
    return share(lambda task: task(), list(tasks))


def lock():
    """A lock for what ``run``'s work shares: a native lock under gevent, else ``threading.Lock``."""
    return _original("threading", "Lock")()


def release_memory() -> None:
    """Give freed heap memory back to the system (glibc's ``malloc_trim``; elsewhere nothing)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def _native_threads():
    """gevent's pool of native threads when gevent has patched threading, else ``None``."""
    if _gevent_monkey() is None:
        return None
    from gevent import get_hub

    return get_hub().threadpool


def _original(module: str, name: str):
    """``module.name`` as it was before gevent patched it (as it is, when it did not)."""
    monkey = _gevent_monkey()
    return getattr(importlib.import_module(module), name) if monkey is None else monkey.get_original(module, name)


def _gevent_monkey():
    """``gevent.monkey`` when it has patched threading (``companion serve``), else ``None``."""
    monkey = sys.modules.get("gevent.monkey")
    return monkey if monkey is not None and monkey.is_module_patched("threading") else None


@functools.cache
def _malloc_trim():
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None).malloc_trim  # the C library this process already runs on
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        return None
