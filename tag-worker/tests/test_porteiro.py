"""The door (issue 13): token before the body, a 64 KiB body limit before reading, no open docs."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from conftest import TOKEN, configuracao
from fastapi.testclient import TestClient

from app.main import create_app
from app.porteiro import LIMITE_CORPO

COCA = {"sku": "7894900011517", "descricao": "COCA COLA 2L PET"}


@pytest.fixture
def com_token() -> Iterator[TestClient]:
    with TestClient(create_app(configuracao(tag_worker_token=TOKEN))) as cliente:
        yield cliente


def test_corpo_acima_do_limite_413(cliente: TestClient) -> None:
    grande = b'{"sku": "7894900011517", "descricao": "' + b"a" * LIMITE_CORPO + b'"}'
    resposta = cliente.post(
        "/classificar", content=grande, headers={"content-type": "application/json"}
    )
    assert resposta.status_code == 413
    assert "64 KiB" in resposta.json()["detail"]


def test_corpo_sem_content_length_acima_do_limite_413(cliente: TestClient) -> None:
    def pedacos() -> Iterator[bytes]:
        yield b'{"sku": "7894900011517", "descricao": "'
        for _ in range(20):
            yield b"a" * 8192
        yield b'"}'

    resposta = cliente.post(
        "/classificar", content=pedacos(), headers={"content-type": "application/json"}
    )
    assert resposta.status_code == 413


def test_corpo_no_limite_passa(cliente: TestClient) -> None:
    assert cliente.post("/classificar", json=COCA).status_code == 200


def test_sem_token_401_sem_ler_um_corpo_ilegivel(com_token: TestClient) -> None:
    resposta = com_token.post(
        "/classificar", content=b"{isto nao e json", headers={"content-type": "application/json"}
    )
    assert resposta.status_code == 401
    assert resposta.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize("rota", ["/docs", "/redoc", "/openapi.json"])
def test_docs_fechados_com_token(com_token: TestClient, rota: str) -> None:
    assert com_token.get(rota).status_code == 401
    autenticado = com_token.get(rota, headers={"Authorization": f"Bearer {TOKEN}"})
    assert autenticado.status_code == 404


def test_docs_abertos_sem_token(cliente: TestClient) -> None:
    assert cliente.get("/openapi.json").status_code == 200


def _rss_kb() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for linha in f:
            if linha.startswith("VmRSS:"):
                return int(linha.split()[1])
    raise AssertionError("no VmRSS")


def _enviar(porta: int, cabecalhos: bytes, corpo: bytes) -> bytes:
    """Sends a request whose body the server may refuse mid-way; returns what it answered."""
    with socket.create_connection(("127.0.0.1", porta), timeout=10) as s:
        s.sendall(cabecalhos)
        try:
            for i in range(0, len(corpo), 1 << 20):
                s.sendall(corpo[i : i + (1 << 20)])
        except OSError:
            pass  # the server answered and closed: expected
        resposta = b""
        try:
            while chunk := s.recv(65536):
                resposta += chunk
        except OSError:
            pass
        return resposta


@pytest.mark.skipif(not hasattr(socket, "AF_INET"), reason="needs sockets")
def test_rss_fica_estavel_com_corpos_de_10_mib_recusados() -> None:
    servidor = uvicorn.Server(
        uvicorn.Config(
            create_app(configuracao(tag_worker_token=TOKEN)),
            host="127.0.0.1",
            port=0,
            log_level="warning",
            lifespan="on",
        )
    )
    thread = threading.Thread(target=servidor.run, daemon=True)
    thread.start()
    try:
        prazo = time.monotonic() + 10
        while not servidor.started:
            assert thread.is_alive() and time.monotonic() < prazo
            time.sleep(0.01)  # polling a condition, with a deadline
        porta = servidor.servers[0].sockets[0].getsockname()[1]
        corpo = b"x" * (10 << 20)
        sem_token = (
            b"POST /classificar HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % len(corpo)
        )
        com_token = (
            b"POST /classificar HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Authorization: Bearer " + TOKEN.encode() + b"\r\n"
            b"Content-Length: %d\r\n\r\n" % len(corpo)
        )
        # One of each first, so what the server allocates once is in the baseline.
        _enviar(porta, sem_token, corpo)
        _enviar(porta, com_token, corpo)
        antes = _rss_kb()
        for _ in range(10):
            assert b" 401 " in _enviar(porta, sem_token, corpo).split(b"\r\n", 1)[0] + b" "
            assert b" 413 " in _enviar(porta, com_token, corpo).split(b"\r\n", 1)[0] + b" "
        depois = _rss_kb()
        assert depois - antes < 8 * 1024, f"RSS grew {depois - antes} kB over 20 requests of 10 MiB"
    finally:
        servidor.should_exit = True
        thread.join(timeout=10)
