"""The embedded server's lifecycle: clients killed with SIGTERM or SIGKILL, and a server
killed under a running process."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest
from sqlalchemy import text

from langmemcore import DatabaseUnavailableError
from langmemcore.storage import Database
from langmemcore.storage.embedded import embedded_database_url
from tests.conftest import REPO_ROOT

CONFIG_VARIABLES = ("DATABASE_URL", "LANGMEMCORE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR")
WAIT_S = 300


class Clients:
    """Drives tests/integration/embedded_clients.py: forks clients on a shared home."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.strip())

    def _ask(self, command: str, answer: str) -> str:
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        line = self.lines.get(timeout=WAIT_S)
        assert line.startswith(answer + " "), line
        return line.split(" ", 1)[1]

    def linger(self) -> int:
        """A client that opened the server and now waits to be killed."""
        return int(self._ask("linger", "ready"))

    def run(self) -> int:
        """A client that opens the server, runs SELECT 1 and exits normally."""
        return int(self._ask("run", "ready"))

    def wait(self, pid: int) -> int:
        """Reap a client: its exit code (negative: the signal that killed it)."""
        return int(self._ask(f"wait {pid}", "status"))


@contextmanager
def clients(tmp_path: Path) -> Iterator[Clients]:
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARIABLES}
    env["HOME"] = str(tmp_path)
    env["LANGMEMCORE_HOME"] = str(tmp_path / "home")
    with (tmp_path / "clients.log").open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "tests.integration.embedded_clients"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            env=env,
            cwd=REPO_ROOT,
        )
        try:
            yield Clients(process)
        finally:
            assert process.stdin is not None
            process.stdin.close()
            process.wait(timeout=WAIT_S)


def handles(pgdata: Path) -> set[int]:
    """The pids in the server's handle file."""
    return set(json.loads((pgdata / ".handle_pids.json").read_text()))


def postmaster(pgdata: Path) -> psutil.Process | None:
    """The running server on ``pgdata``, from its pid file."""
    pid_file = pgdata / "postmaster.pid"
    if not pid_file.exists():
        return None
    try:
        process = psutil.Process(int(pid_file.read_text().split()[0]))
        return None if process.status() == psutil.STATUS_ZOMBIE else process
    except psutil.NoSuchProcess:
        return None


def servers_on(pgdata: Path) -> list[int]:
    """Pids of live postgres processes started on ``pgdata``."""
    found = []
    for process in psutil.process_iter(["name", "cmdline", "status"]):
        cmdline = process.info["cmdline"] or []
        if (
            process.info["name"] == "postgres"
            and process.info["status"] != psutil.STATUS_ZOMBIE
            and str(pgdata) in cmdline
        ):
            found.append(process.pid)
    return found


@pytest.mark.embedded_default
def test_clients_killed_with_sigkill_and_sigterm_leave_no_server_running(
    tmp_path: Path,
) -> None:
    pgdata = tmp_path / "home" / "pgdata"
    with clients(tmp_path) as factory:
        crashed = [factory.linger() for _ in range(5)]
        server = postmaster(pgdata)
        assert server is not None
        for pid in crashed:
            os.kill(pid, signal.SIGKILL)
            assert factory.wait(pid) == -signal.SIGKILL
        assert handles(pgdata) == set(crashed)  # nobody left to remove them
        assert postmaster(pgdata) == server  # and nobody stopped the server

        live = [factory.linger() for _ in range(15)]
        assert postmaster(pgdata) == server  # reused, not restarted
        assert handles(pgdata) == set(live)  # the dead pids were pruned on open
        for pid in live[:5]:
            os.kill(pid, signal.SIGKILL)
            assert factory.wait(pid) == -signal.SIGKILL
        for pid in live[5:-1]:
            os.kill(pid, signal.SIGTERM)
            assert factory.wait(pid) == 128 + signal.SIGTERM  # a normal exit
            assert postmaster(pgdata) == server  # other clients still use it
        os.kill(live[-1], signal.SIGTERM)
        assert factory.wait(live[-1]) == 128 + signal.SIGTERM
        # The last live client stopped the server, though 5 killed pids were listed.
        assert handles(pgdata) == set()
        assert postmaster(pgdata) is None
        assert servers_on(pgdata) == []

        last = factory.run()
        assert factory.wait(last) == 0  # the next open works
        assert postmaster(pgdata) is None
        assert servers_on(pgdata) == []


def kill_server(pgdata: Path, signum: int) -> int:
    """Kill the server on ``pgdata``; return once it and its backends are gone."""
    server = postmaster(pgdata)
    assert server is not None
    processes = [server, *server.children()]
    server.send_signal(signum)
    _, alive = psutil.wait_procs(processes, timeout=WAIT_S)
    assert not alive
    return server.pid


@pytest.mark.embedded_default
@pytest.mark.parametrize("signum", [signal.SIGQUIT, signal.SIGKILL], ids=["immediate", "kill"])
async def test_a_server_killed_under_a_running_process_restarts_on_the_next_operation(
    tmp_path: Path, signum: int
) -> None:
    database = Database(embedded_database_url(tmp_path))
    pgdata = tmp_path / "pgdata"
    async with database.session() as session:
        await session.execute(text("CREATE TABLE kept (x int)"))
        await session.execute(text("INSERT INTO kept VALUES (7)"))
    async with database.reader() as session:  # a pooled connection of each engine
        assert await session.scalar(text("SELECT 1")) == 1
    old = kill_server(pgdata, signum)

    async with database.session() as session:
        assert await session.scalar(text("SELECT x FROM kept")) == 7
    async with database.reader() as session:
        assert await session.scalar(text("SELECT count(*) FROM kept")) == 1
    server = postmaster(pgdata)
    assert server is not None
    assert server.pid != old
    await database.dispose()


@pytest.mark.embedded_default
async def test_a_server_that_cannot_start_again_fails_clearly(tmp_path: Path) -> None:
    database = Database(embedded_database_url(tmp_path), reconnect_timeout=1.0)
    pgdata = tmp_path / "pgdata"
    async with database.reader() as session:
        assert await session.scalar(text("SELECT 1")) == 1
    kill_server(pgdata, signal.SIGQUIT)
    version = pgdata / "PG_VERSION"
    version.rename(tmp_path / "PG_VERSION")  # the data folder is no longer a cluster

    with pytest.raises(DatabaseUnavailableError) as info:
        async with database.reader() as session:
            await session.scalar(text("SELECT 1"))
    assert f"The embedded Postgres in {pgdata} stopped and could not be started" in str(info.value)

    (tmp_path / "PG_VERSION").rename(version)
    async with database.reader() as session:  # the next operation tries again
        assert await session.scalar(text("SELECT 1")) == 1
    await database.dispose()
