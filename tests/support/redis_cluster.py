"""A private three-node Redis Cluster on spare ports (``redis-server --cluster-enabled
yes`` and ``redis-cli --cluster create``), for the tests of DESIGN 13. Never the shared
Redis."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import redis

from tests.support.redis_server import free_port


class RedisCluster:
    def __init__(self, nodes: int = 3) -> None:
        self.ports = [_node_port() for _ in range(nodes)]
        self.dir = Path(tempfile.mkdtemp(prefix="cardroom-redis-cluster-"))
        self.processes: list[subprocess.Popen[bytes]] = []

    @property
    def url(self) -> str:
        """The URL of one node: a cluster client learns the others from it."""
        return f"redis://127.0.0.1:{self.ports[0]}/0"

    def start(self) -> None:
        server = shutil.which("redis-server") or "redis-server"
        for port in self.ports:
            self.processes.append(
                subprocess.Popen(
                    [
                        server,
                        "--port",
                        str(port),
                        "--bind",
                        "127.0.0.1",
                        "--cluster-enabled",
                        "yes",
                        "--cluster-config-file",
                        f"nodes-{port}.conf",
                        "--save",
                        "",
                        "--appendonly",
                        "no",
                    ],
                    cwd=self.dir,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        for port in self.ports:
            _wait(lambda port=port: redis.Redis(host="127.0.0.1", port=port).ping())
        subprocess.run(
            [
                shutil.which("redis-cli") or "redis-cli",
                "--cluster",
                "create",
                *(f"127.0.0.1:{port}" for port in self.ports),
                "--cluster-replicas",
                "0",
                "--cluster-yes",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        for port in self.ports:
            _wait(lambda port=port: _state(port) == "ok")

    def node_of(self, key: str) -> int:
        """The port of the node that owns ``key``'s slot."""
        client = redis.RedisCluster(host="127.0.0.1", port=self.ports[0])
        try:
            node = client.get_node_from_key(key)
            assert node is not None
            return int(node.port)
        finally:
            client.close()

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            process.wait(timeout=10)
        self.processes.clear()
        shutil.rmtree(self.dir, ignore_errors=True)


def _node_port() -> int:
    """A spare port whose cluster bus port (the port + 10000) is a port too."""
    while True:
        port = free_port()
        if port + 10_000 <= 65_535 and free_port_at(port + 10_000):
            return port


def free_port_at(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _state(port: int) -> str:
    info = redis.Redis(host="127.0.0.1", port=port, decode_responses=True).cluster("info")
    return str(info.get("cluster_state"))


def _wait(ready: object, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if ready():  # type: ignore[operator]
                return
        except redis.RedisError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError("the Redis Cluster did not come up")
        time.sleep(0.05)
