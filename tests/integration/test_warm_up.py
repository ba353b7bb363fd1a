"""Start-up: opening a memory starts loading its models in the background, once per
process; ``warm_up`` / ``awarm_up`` wait for them (on ``Memory`` and ``MemoryStore``), and
``langmemcore doctor`` says what is installed, which database and embedder are in use and
how long the embedder and the parser take to load.
"""

from __future__ import annotations

import asyncio

from sqlalchemy import make_url

from langmemcore import MemoryStore
from langmemcore.config import ConstructionConfig
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.embeddings._local import LOCAL_MODEL
from langmemcore.memory import Memory
from langmemcore.storage import Database
from langmemcore.text.parse import PIPELINE, english_pipeline

from .conftest import Cli


async def test_awarm_up_loads_the_embedder_and_the_parser_once(
    database: Database, embeddings: LocalEmbeddings
) -> None:
    memory = Memory(database, embeddings)
    await memory.awarm_up()
    assert LOCAL_MODEL.loaded and PIPELINE.loaded
    assert LOCAL_MODEL.builds == 1 and PIPELINE.builds == 1
    model, pipeline = embeddings.load(), english_pipeline()
    await asyncio.gather(Memory(database, LocalEmbeddings()).awarm_up(), memory.awarm_up())
    assert embeddings.load() is model and LocalEmbeddings().load() is model
    assert english_pipeline() is pipeline
    assert LOCAL_MODEL.builds == 1 and PIPELINE.builds == 1


def test_warm_up_through_the_sync_twins_of_memory_and_store(
    database: Database, embeddings: LocalEmbeddings
) -> None:
    memory = Memory(database, embeddings, config=ConstructionConfig(profiles=False))
    memory.warm_up()
    store = MemoryStore(Memory(database, embeddings))
    store.warm_up()
    assert LOCAL_MODEL.loaded and PIPELINE.loaded
    assert LOCAL_MODEL.builds == 1 and PIPELINE.builds == 1


def test_doctor_names_the_packages_database_embedder_and_load_times(cli: Cli, url: str) -> None:
    secret = make_url(url).set(password="s3cret-pw").render_as_string(hide_password=False)
    run = cli("doctor", "--url", secret)
    assert run.code == 0, run.err
    lines = dict(line.split(":", 1) for line in run.out.splitlines() if ":" in line)
    assert "langmemcore " in lines["installed"] and "spacy " in lines["installed"]
    assert "torch " in lines["installed"] and "sqlalchemy " in lines["installed"]
    assert "[DATABASE_URL / --url]" in lines["database"]
    assert "s3cret-pw" not in run.out and "***" in lines["database"]
    assert "all-MiniLM-L6-v2 (384 dims)" in lines["embedder"]
    load = lines["load"].split()
    assert load[0] == "embedder" and float(load[1]) > 0 and load[2] == "s,"
    assert load[3] == "parser" and float(load[4]) > 0 and load[5] == "s"
    quick = cli("doctor", "--url", url, "--no-load")
    assert quick.code == 0 and "load:" not in quick.out and "embedder:" in quick.out
