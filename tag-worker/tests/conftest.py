"""Shared fixtures: a keyword-mode app, and a stand-in OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

# `app.main` builds a module-level app from the environment when imported; make that import
# predictable whatever the developer's shell or `.env` holds (the environment beats `.env`).
os.environ["GROQ_API_KEY"] = ""
os.environ["TAG_WORKER_TOKEN"] = ""

from fastapi.testclient import TestClient  # noqa: E402

from app.config import Configuracao  # noqa: E402
from app.main import create_app  # noqa: E402

TOKEN = "token-de-teste-0123456789abcdef"

# The categories of SPEC §3.15 in their order, written out here (not read from `Categoria`) so the
# tests check the code against the spec: the model's enum and the LLM's answer schema both.
CATEGORIAS = [
    "bebidas",
    "laticinios",
    "mercearia",
    "hortifruti",
    "padaria",
    "carnes",
    "congelados",
    "limpeza",
    "higiene",
    "pet",
    "outros",
]


def configuracao(**valores: Any) -> Configuracao:
    """A configuration from the given values only (no `.env` file; keyword mode by default)."""
    valores.setdefault("groq_api_key", None)
    valores.setdefault("tag_worker_token", None)
    return Configuracao(_env_file=None, **valores)


@pytest.fixture
def cliente() -> Iterator[TestClient]:
    """A client of a keyword-mode app without token."""
    with TestClient(create_app(configuracao())) as cliente:
        yield cliente


def resposta_chat(conteudo: Any) -> dict[str, Any]:
    """A chat-completions response whose message content is `conteudo` (a str is sent as is)."""
    if not isinstance(conteudo, str):
        conteudo = json.dumps(conteudo, ensure_ascii=False)
    return {
        "id": "chatcmpl-teste",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": conteudo},
                "finish_reason": "stop",
            }
        ],
    }


@dataclass
class PedidoRecebido:
    caminho: str
    cabecalhos: dict[str, str]
    corpo: Any


@dataclass
class LLMSubstituto:
    """What the stand-in answers next, and what it received.

    `status`/`resposta` are the answer (`resposta` a JSON-able value, or bytes sent verbatim);
    `atraso` makes it wait that many seconds first (ended early at teardown).
    """

    url: str = ""
    status: int = 200
    resposta: Any = field(
        default_factory=lambda: resposta_chat({"tags": ["x"], "categoria": "outros"})
    )
    atraso: float = 0.0
    pedidos: list[PedidoRecebido] = field(default_factory=list)
    liberar: threading.Event = field(default_factory=threading.Event)

    @property
    def ultimo(self) -> PedidoRecebido:
        assert self.pedidos, "the stand-in received no request"
        return self.pedidos[-1]


class _Servidor(ThreadingHTTPServer):
    daemon_threads = True
    substituto: LLMSubstituto

    def handle_error(self, request, client_address) -> None:
        # A client that gave up (the timeout test) closes the socket under the handler: expected.
        pass


class _Manipulador(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Servidor

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        substituto = self.server.substituto
        tamanho = int(self.headers.get("Content-Length") or 0)
        bruto = self.rfile.read(tamanho)
        try:
            corpo: Any = json.loads(bruto)
        except ValueError:
            corpo = bruto
        substituto.pedidos.append(
            PedidoRecebido(self.path, {k.lower(): v for k, v in self.headers.items()}, corpo)
        )
        if substituto.atraso:
            substituto.liberar.wait(substituto.atraso)
        resposta = substituto.resposta
        dados = resposta if isinstance(resposta, bytes) else json.dumps(resposta).encode()
        self.send_response(substituto.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(dados)))
        self.end_headers()
        self.wfile.write(dados)


@pytest.fixture
def llm() -> Iterator[LLMSubstituto]:
    """A stand-in chat-completions server, listening on 127.0.0.1 (port chosen by the OS).

    The socket listens as soon as the server is built, so no waiting is needed before use.
    """
    servidor = _Servidor(("127.0.0.1", 0), _Manipulador)
    substituto = LLMSubstituto()
    servidor.substituto = substituto
    host, porta = servidor.server_address[:2]
    substituto.url = f"http://{host}:{porta}/openai/v1/chat/completions"
    thread = threading.Thread(
        target=servidor.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield substituto
    finally:
        substituto.liberar.set()
        servidor.shutdown()
        servidor.server_close()
        thread.join(timeout=5)


def configuracao_llm(substituto: LLMSubstituto, **valores: Any) -> Configuracao:
    valores.setdefault("groq_api_key", "chave-do-llm-de-teste")
    valores.setdefault("groq_modelo", "modelo-de-teste")
    valores.setdefault("groq_timeout_segundos", 2.0)
    valores.setdefault("groq_url", substituto.url)
    return configuracao(**valores)


@pytest.fixture
def cliente_llm(llm: LLMSubstituto) -> Iterator[TestClient]:
    """A client of an LLM-mode app that calls the stand-in."""
    with TestClient(create_app(configuracao_llm(llm))) as cliente:
        yield cliente
