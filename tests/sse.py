"""A small server-sent-events reader for tests (over the test client or a real socket)."""
from __future__ import annotations

import queue
import threading


def parse(lines):
    """Yield ``{"id", "event", "data"}`` for every message in an iterable of text lines."""
    message: dict = {"data": []}
    for line in lines:
        line = line.rstrip("\r\n")
        if not line:
            if message["data"] or "event" in message:
                yield {**message, "data": "\n".join(message["data"])}
            message = {"data": []}
        elif line.startswith(":"):
            continue
        else:
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "data":
                message["data"].append(value)
            elif field in ("id", "event", "retry"):
                message[field] = value


class Reader:
    """Reads SSE messages in a background thread; :meth:`next` waits for the next one.

    ``open_lines`` is called in that thread (a Flask streaming response must be read in
    the thread that made the request) and returns an iterable of text lines.
    """

    def __init__(self, open_lines):
        self.messages: queue.Queue = queue.Queue()
        self.thread = threading.Thread(target=self._run, args=(open_lines,), daemon=True)
        self.thread.start()

    def _run(self, open_lines):
        try:
            for message in parse(open_lines()):
                self.messages.put(message)
        except Exception as exc:  # the connection closed under us
            self.messages.put(exc)
        self.messages.put(None)

    def next(self, timeout=10.0, event=None):
        while True:
            message = self.messages.get(timeout=timeout)
            if not isinstance(message, dict):
                return message
            if event is None or message.get("event") == event:
                return message


def client_lines(response):
    """Text lines from a streaming Flask test-client response."""
    buffer = ""
    for chunk in response.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n" in buffer:
            line, buffer = buffer.split("\n", 1)
            yield line + "\n"
