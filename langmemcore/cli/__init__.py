"""The langmemcore command line: a thin layer over the library.

demo runs the main job with zero configuration; ingest, search, stats and topics work on
any namespace; demo, ingest, search and eval take a chat model (--llm, --llm-url: any
OpenAI-compatible server) and are offline without one (search --active needs one: a
tool-calling model walks memory);
migrate, downgrade and doctor look after the schema and the set-up, and rethread gives
notes stored before schema 0010 their thread vectors;
eval locomo measures evidence recall, eval frontier the utility-capacity frontier and
eval knowledge-updates whether facts that change are found as they stand now and before.

Every mistake of the user (a missing or malformed file, an unreachable database, a bad
namespace or argument) is one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from langmemcore._errors import LangMemCoreError
from langmemcore.cli._admin import cmd_doctor, cmd_downgrade, cmd_migrate
from langmemcore.cli._memory import (
    cmd_demo,
    cmd_eval_frontier,
    cmd_eval_locomo,
    cmd_eval_updates,
    cmd_ingest,
    cmd_rethread,
    cmd_search,
    cmd_stats,
    cmd_topics,
)
from langmemcore.cli._profile import cmd_profile

__all__ = ["build_parser", "main", "positive_int"]


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr, exit code 2."""

    def error(self, message: str) -> NoReturn:
        """Print ``<prog>: error: <message>`` and exit with code 2."""
        self.exit(2, f"{self.prog}: error: {_one_line(message)}\n")


def positive_int(text: str) -> int:
    """An argument that must be a whole number of at least 1 (``--k``, ``--limit``...)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _one_line(message: str) -> str:
    """A message with its line breaks and runs of spaces folded into single spaces."""
    return " ".join(message.split())


def _common() -> _Parser:
    """Options every command takes, before or after its name."""
    common = _Parser(add_help=False)
    common.add_argument(
        "--url",
        default=argparse.SUPPRESS,
        help="database URL (default: DATABASE_URL, else the embedded Postgres)",
    )
    common.add_argument(
        "--embeddings",
        default=argparse.SUPPRESS,
        help="'provider:model' (default: local all-MiniLM-L6-v2)",
    )
    return common


def _model() -> _Parser:
    """The chat model of the commands that can use one (ingest, demo, search, eval)."""
    model = _Parser(add_help=False)
    model.add_argument(
        "--llm",
        default=os.environ.get("LANGMEMCORE_LLM") or None,
        help="'provider:model' chat model, e.g. openai:gpt-4o, or a model's name on the "
        "--llm-url server (default: LANGMEMCORE_LLM; none: offline)",
    )
    model.add_argument(
        "--llm-url",
        default=os.environ.get("LANGMEMCORE_LLM_URL") or None,
        help="an OpenAI-compatible server for --llm, e.g. http://127.0.0.1:8080/v1 "
        "(llama-server, vLLM, Ollama; default: LANGMEMCORE_LLM_URL)",
    )
    return model


def _memory_commands(sub: argparse._SubParsersAction, common: _Parser) -> None:
    """``demo``, ``ingest``, ``search``, ``stats``, ``topics``, ``profile`` and ``rethread``."""
    model = _model()
    demo = sub.add_parser(
        "demo",
        parents=[common, model],
        help="remember a sample conversation and answer questions about it (migrates if needed)",
    )
    demo.add_argument("--k", type=positive_int, default=3, help="notes of evidence per question")
    demo.set_defaults(func=cmd_demo)

    ingest = sub.add_parser(
        "ingest",
        parents=[common, model],
        help="remember a file: JSON list / JSON Lines of {text, speaker?, time?, key?}, or LoCoMo",
    )
    ingest.add_argument("file", help="the file to remember")
    ingest.add_argument(
        "--namespace",
        required=True,
        help="e.g. users.alice (a LoCoMo file with several conversations: one below it each)",
    )
    ingest.set_defaults(func=cmd_ingest)

    _search_command(sub, common, model)

    stats = sub.add_parser("stats", parents=[common], help="count what memory holds")
    stats.add_argument("--namespace", default=None, help="only this namespace and those below")
    stats.set_defaults(func=cmd_stats)

    topics = sub.add_parser("topics", parents=[common], help="list a namespace's topics")
    topics.add_argument("--namespace", required=True, help="e.g. users.alice")
    topics.add_argument("--evolve", action="store_true", help="recompute the topics first")
    topics.set_defaults(func=cmd_topics)

    profile = sub.add_parser(
        "profile", parents=[common], help="print what memory knows about a person"
    )
    profile.add_argument("subject", help="the person, e.g. Nadia (any case)")
    profile.add_argument("--namespace", required=True, help="e.g. users.alice")
    profile.add_argument("--json", action="store_true", help="print the profile as JSON")
    profile.set_defaults(func=cmd_profile)

    rethread = sub.add_parser(
        "rethread",
        parents=[common],
        help="give notes stored before thread vectors (schema 0010) their thread vectors",
    )
    rethread.add_argument("--namespace", default=None, help="only this namespace and those below")
    rethread.set_defaults(func=cmd_rethread)


def _search_command(sub: argparse._SubParsersAction, common: _Parser, model: _Parser) -> None:
    """``search``, passive or ``--active`` (with the ``--llm`` model)."""
    search = sub.add_parser(
        "search", parents=[common, model], help="print the evidence for a query"
    )
    search.add_argument("query")
    search.add_argument("--namespace", required=True, help="e.g. users.alice")
    search.add_argument("--k", type=positive_int, default=5, help="notes returned at most")
    search.add_argument(
        "--active",
        action="store_true",
        help="MRAgent's active mode: the --llm model walks cue -> tag -> content with tools "
        "(needs --llm)",
    )
    search.add_argument(
        "--as-of",
        default=None,
        metavar="ISO-TIME",
        help="search memory as it stood at this time, with its timezone "
        "(e.g. 2023-06-30T00:00:00+00:00)",
    )
    search.set_defaults(func=cmd_search)


def _eval_commands(sub: argparse._SubParsersAction, common: _Parser) -> None:
    """``eval locomo``, ``eval frontier`` and ``eval knowledge-updates``."""
    evaluation = sub.add_parser("eval", help="evaluate memory on a benchmark")
    benchmarks = evaluation.add_subparsers(dest="benchmark", required=True)
    model = _model()
    locomo = benchmarks.add_parser(
        "locomo", parents=[common, model], help="LoCoMo evidence recall@k by turn budget"
    )
    locomo.add_argument("path", help="LoCoMo JSON file (e.g. ../shared/data/locomo-dev.json)")
    locomo.add_argument(
        "--ablations",
        action="store_true",
        help="also run each mechanism on or off, and append-only memory",
    )
    locomo.add_argument(
        "--out", default=None, help="also write the report here, after each run (ablations)"
    )
    locomo.add_argument("--limit", type=positive_int, default=None, help="conversations evaluated")
    locomo.add_argument(
        "--sessions", type=positive_int, default=None, help="sessions per conversation"
    )
    locomo.add_argument(
        "--questions", type=positive_int, default=None, help="retrieval questions per conversation"
    )
    locomo.set_defaults(func=cmd_eval_locomo)
    front = benchmarks.add_parser(
        "frontier",
        parents=[common],
        help="utility-capacity frontier: compaction vs recency, random, oracle",
    )
    front.add_argument("path", help="LoCoMo JSON file (e.g. ../shared/data/locomo-dev.json)")
    front.add_argument("--seed", type=int, default=0, help="seed of the question split")
    front.add_argument("--out", default="frontier-results", help="folder for the CSV and PNG")
    front.set_defaults(func=cmd_eval_frontier)
    updates = benchmarks.add_parser(
        "knowledge-updates",
        parents=[common, model],
        help="facts that change: newer statement first, the older one for the past",
    )
    updates.add_argument(
        "path",
        nargs="?",
        default="tests/data/knowledge_updates.json",
        help="knowledge-update set (default: the project's, from the repository root)",
    )
    updates.add_argument(
        "--without",
        nargs="+",
        default=[],
        help="ask again with these channels (or supersession) off",
    )
    updates.add_argument(
        "--with",
        dest="with_",
        nargs="+",
        default=[],
        help="ask again with these mechanisms on offline (from RetrievalConfig.llm_only)",
    )
    updates.set_defaults(func=cmd_eval_updates)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``langmemcore`` command."""
    common = _common()
    parser = _Parser(
        prog="langmemcore",
        description=__doc__,  # plain text, no reStructuredText: it is the --help
        parents=[common],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)

    migrate = sub.add_parser("migrate", parents=[common], help="create or upgrade the schema")
    migrate.add_argument("--revision", default="head")
    migrate.add_argument(
        "--dims",
        type=positive_int,
        default=None,
        help="embedding dimensions of a new schema (default 384)",
    )
    migrate.set_defaults(func=cmd_migrate)

    down = sub.add_parser(
        "downgrade", parents=[common], help="take the schema back (alembic downgrade)"
    )
    down.add_argument("revision", help="target revision, e.g. 'base' to drop everything")
    down.set_defaults(func=cmd_downgrade)

    doctor = sub.add_parser(
        "doctor",
        parents=[common],
        help="show the installed packages, the database, schema and embedder, and how long "
        "the embedder and the parser take to load",
    )
    doctor.add_argument(
        "--no-load",
        dest="load",
        action="store_false",
        help="do not load the embedder and the parser (no load times)",
    )
    doctor.set_defaults(func=cmd_doctor)
    _memory_commands(sub, common)
    _eval_commands(sub, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (2 for any mistake of the user).

    Library errors and unreadable files are reported as one ``error:`` line on stderr,
    never as a traceback.
    """
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exit_:  # --help (0) or a usage error, already printed (2)
        return int(exit_.code or 0)
    for option in ("url", "embeddings"):
        if not hasattr(args, option):
            setattr(args, option, None)
    try:
        return int(args.func(args))
    except LangMemCoreError as exc:
        message = str(exc)
    except OSError as exc:  # a file that cannot be read or written
        message = f"{exc.filename}: {exc.strerror}" if exc.filename else str(exc)
    print(f"error: {_one_line(message)}", file=sys.stderr)
    return 2
