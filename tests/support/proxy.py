"""A TCP relay in front of a server whose connections a test can cut at once, as a
network drop would (the browser's open streams end and it must reconnect), or hold, as a
partition that no end notices would."""

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
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            with self._lock:
                self._open |= {client, upstream}
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        with suppress(OSError):
            while chunk := source.recv(65536):
                self._flowing.wait()
                sink.sendall(chunk)
        for end in (source, sink):
            with suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)

    def hold(self) -> None:
        """Passes nothing on, either way, and closes nothing: a network cut that no end
        has noticed. :meth:`release` lets what waited through."""
        self._flowing.clear()

    def release(self) -> None:
        self._flowing.set()

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
