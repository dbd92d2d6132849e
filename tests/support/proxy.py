"""A TCP relay in front of a server whose connections a test can cut at once, as a
network drop would (the browser's open streams end and it must reconnect), or hold, as a
partition that no end notices would; it can hold only the event streams' connections (a
NAT that forgot one) or the connection of one request (a request a dead kept-alive
connection swallowed), lose one request's answer, or turn every new connection away (a
network that is down)."""

from __future__ import annotations

import socket
import threading
from contextlib import suppress


class Relay:
    def __init__(self, port: int) -> None:
        self.target = ("127.0.0.1", port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._flowing = threading.Event()
        self._flowing.set()
        self._streams: list[threading.Event] = []  # each event stream's: set while flowing
        self._held: list[threading.Event] = []
        self._refusing = False
        self._swallow: bytes | None = None  # the request line hold_next waits for
        self._mute: bytes | None = None  # the request line lose_answer_of waits for
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self._refusing:
                client.close()
                continue
            upstream = socket.create_connection(self.target)
            with self._lock:
                self._open |= {client, upstream}
            # This connection's gates: both ways (held by hold_streams and hold_next), and
            # its answers alone (held by lose_answer_of).
            flowing, answering = threading.Event(), threading.Event()
            flowing.set()
            answering.set()
            for source, sink, gates in (
                (client, upstream, (flowing,)),
                (upstream, client, (flowing, answering)),
            ):
                pump = threading.Thread(
                    target=self._pump,
                    args=(source, sink, gates, answering if source is client else None),
                    daemon=True,
                )
                pump.start()

    def _pump(
        self,
        source: socket.socket,
        sink: socket.socket,
        gates: tuple[threading.Event, ...],
        answering: threading.Event | None,
    ) -> None:
        """``answering``: the connection's answers' gate, on the client's side."""
        flowing = gates[0]
        with suppress(OSError):
            while chunk := source.recv(65536):
                line = chunk.split(b"\r\n", 1)[0] if answering is not None else b""
                with self._lock:
                    if b"/stream" in line:
                        self._streams.append(flowing)
                    elif self._swallow is not None and line.startswith(self._swallow):
                        self._swallow = None
                        self._held.append(flowing)
                        flowing.clear()
                    elif answering and self._mute is not None and line.startswith(self._mute):
                        self._mute = None
                        self._held.append(answering)
                        answering.clear()
                self._pass(gates)
                sink.sendall(chunk)
        # A held connection's end is held too: the server closing an idle connection
        # would tell the client, which would send its request again on a new one.
        self._pass(gates)
        for end in (source, sink):
            with suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)

    def _pass(self, gates: tuple[threading.Event, ...]) -> None:
        self._flowing.wait()
        for gate in gates:
            gate.wait()

    def hold(self) -> None:
        """Passes nothing on, either way, and closes nothing: a network cut that no end
        has noticed. :meth:`release` lets what waited through."""
        self._flowing.clear()

    def release(self) -> None:
        self._flowing.set()
        with self._lock:
            held, self._held = self._held, []
        for flowing in held:
            flowing.set()

    def hold_streams(self) -> None:
        """Like :meth:`hold`, for the event streams open now alone: each stays open and
        silent, while other requests, and streams opened later, go through."""
        with self._lock:
            held, self._streams = self._streams, []
            self._held += held
        for flowing in held:
            flowing.clear()

    def hold_next(self, request_line: bytes) -> None:
        """Holds the connection of the next request whose request line begins with
        ``request_line`` (e.g. ``b"GET /tables/… "``), as :meth:`hold_streams` holds a
        stream's: the request never arrives and no answer ever comes."""
        with self._lock:
            self._swallow = request_line

    def lose_answer_of(self, request_line: bytes) -> None:
        """Passes the next request whose request line begins with ``request_line`` on to
        the server, and holds its answer, which never comes: the request is done, and the
        client does not know it."""
        with self._lock:
            self._mute = request_line

    def refuse(self, refusing: bool = True) -> None:
        """Closes every new connection at once (``False``: relays them again)."""
        self._refusing = refusing

    def drop(self) -> None:
        """Cuts every connection open now; new ones are relayed as before."""
        with self._lock:
            cut, self._open = self._open, set()
        for end in cut:
            with suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()

    def close(self) -> None:
        self.listener.close()
        self.drop()
        self.release()  # the pumps of held connections end with them
