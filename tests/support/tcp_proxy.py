"""A loopback TCP proxy that can stall (stop forwarding) or die, for timeout tests.

Everything listens on 127.0.0.1 only; threads are daemons polling every 50 ms, so a test
always ends.
"""

from __future__ import annotations

import socket
import threading
import time


class StallingProxy:
    """Forward 127.0.0.1:<port> to ``target``; :meth:`stall` stops forwarding, :meth:`kill` dies."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.listener.settimeout(0.05)
        self.port = int(self.listener.getsockname()[1])
        self.stalled = threading.Event()
        self.dead = threading.Event()
        self.sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.dead.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                continue
            if self.stalled.is_set():
                continue  # a stalled server accepts and never answers
            try:
                upstream = socket.create_connection(self.target, timeout=2)
            except OSError:
                client.close()
                continue
            for sock in (client, upstream):
                sock.settimeout(0.05)
            with self._lock:
                self.sockets += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        while not self.dead.is_set():
            if self.stalled.is_set():
                time.sleep(0.05)
                continue
            try:
                data = source.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                return
            if not data:
                return
            try:
                sink.sendall(data)
            except OSError:
                return

    def stall(self) -> None:
        self.stalled.set()

    def resume(self) -> None:
        self.stalled.clear()

    def kill(self) -> None:
        """Close every connection and stop listening (a killed server)."""
        self.dead.set()
        with self._lock:
            sockets, self.sockets = self.sockets, []
        for sock in [self.listener, *sockets]:
            try:
                sock.close()
            except OSError:
                pass
