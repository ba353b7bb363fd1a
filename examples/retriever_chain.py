"""A LangChain retriever in an LCEL chain: retriever | format docs | prompt | llm.

Remembers a few turns, then answers a question from the retrieved notes. Offline (the
default) a fake chat model answers, so the script runs anywhere; with OPENAI_BASE_URL set
(OpenAI, vLLM, llama.cpp, Ollama...) ChatOpenAI answers (model: OPENAI_MODEL, default
gpt-4o-mini). Memory is the embedded Postgres, or DATABASE_URL.
"""

from __future__ import annotations

import os
import uuid
from datetime import UTC, datetime

from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnablePassthrough

from langmemcore import Memory, MemoryRetriever
from langmemcore.construction import ObservationIn
from langmemcore.storage import Database, upgrade

TURNS = [
    ("Alice", "I adopted a puppy named Max last Saturday."),
    ("Bob", "What breed is Max?"),
    ("Alice", "Max is a golden retriever, he is ten weeks old."),
    ("Alice", "I moved to Porto for a new job at a bakery."),
    ("Bob", "I'm training for the Lisbon marathon in October."),
]
QUESTION = "What kind of dog did Alice adopt, and what is it called?"

PROMPT = ChatPromptTemplate.from_messages(
    [
        ("system", "Answer from the memory notes only. Cite the note ids you used.\n\n{context}"),
        ("human", "{question}"),
    ]
)


def format_docs(docs: list[Document]) -> str:
    """One line per note: id, who said it and when, and the note's context."""
    lines = []
    for doc in docs:
        who = ", ".join(doc.metadata["speakers"]) or "?"
        when = ", ".join(t[:10] for t in doc.metadata["times"] if t) or "?"
        lines.append(f"[note {doc.metadata['note_id']}] ({who}, {when}) {doc.page_content}")
    return "\n".join(lines)


def chat_model() -> tuple[BaseChatModel, str]:
    """ChatOpenAI when OPENAI_BASE_URL is set, else an offline fake model."""
    if os.environ.get("OPENAI_BASE_URL"):
        from langchain_openai import ChatOpenAI

        model = os.environ.get("OPENAI_MODEL", "gpt-4o-mini")
        llm = ChatOpenAI(model=model, api_key=os.environ.get("OPENAI_API_KEY", "not-needed"))
        return llm, f"ChatOpenAI ({model} at {os.environ['OPENAI_BASE_URL']})"
    answer = "(offline fake model) Alice adopted Max, a golden retriever."
    fake = FakeListChatModel(responses=[answer])
    return fake, "an offline fake chat model (set OPENAI_BASE_URL to use ChatOpenAI)"


def main() -> None:
    upgrade(Database.connect())
    memory = Memory.open()
    namespace = ("examples", "chain", uuid.uuid4().hex[:8])
    when = datetime(2024, 5, 20, 9, 0, tzinfo=UTC)
    memory.ingest_many(
        namespace,
        [ObservationIn(f"t{i}", text, who, when) for i, (who, text) in enumerate(TURNS, 1)],
    )
    retriever = MemoryRetriever(memory=memory, namespace=namespace, k=3)
    llm, name = chat_model()
    chain = (
        {"context": retriever | format_docs, "question": RunnablePassthrough()}
        | PROMPT
        | llm
        | StrOutputParser()
    )
    print(f"answering with {name}")
    print("retrieved notes:")
    print(format_docs(retriever.invoke(QUESTION)))
    print(f"Q: {QUESTION}")
    print(f"A: {chain.invoke(QUESTION)}")


if __name__ == "__main__":
    main()
