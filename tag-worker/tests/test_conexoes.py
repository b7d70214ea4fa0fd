"""The connection bounds (issue 25) of the real tag-worker: `python -m app.cli`, as the systemd
unit, `giro dev` and the Rust tests start it, with its bounds set small. An idle connection, a
half-sent head and a body that stops arriving are each dropped within their timeout; the
connection cap holds and frees up; a normal client is served meanwhile."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

RAIZ = Path(__file__).resolve().parent.parent
MAX_CONEXOES = 4


def _porta_livre() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def _iniciar(ocioso: str) -> Iterator[str]:
    porta = _porta_livre()
    ambiente = {
        **os.environ,
        "GROQ_API_KEY": "",
        "TAG_WORKER_TOKEN": "",
        "TAG_WORKER_TIMEOUT_CABECALHO": "1s",
        "TAG_WORKER_TIMEOUT_CORPO": "1s",
        "TAG_WORKER_TIMEOUT_OCIOSO": ocioso,
        "TAG_WORKER_MAX_CONEXOES": str(MAX_CONEXOES),
    }
    processo = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "--port", str(porta), "--log-level", "warning"],
        cwd=RAIZ,
        env=ambiente,
        stdin=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{porta}"
    try:
        prazo = time.monotonic() + 30
        while True:
            assert processo.poll() is None, "the tag-worker exited at start"
            try:
                if httpx.get(f"{url}/saude", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < prazo, "the tag-worker did not answer /saude within 30 s"
            time.sleep(0.05)  # polling a condition, with a deadline
        yield url
    finally:
        processo.terminate()
        processo.wait(timeout=10)


@pytest.fixture(scope="module")
def worker() -> Iterator[str]:
    with _iniciar(ocioso="1s") as url:
        yield url


def _conectar(url: str) -> socket.socket:
    porta = int(url.rsplit(":", 1)[1])
    return socket.create_connection(("127.0.0.1", porta), timeout=30)


def _fechada_em(s: socket.socket, limite: float = 20.0) -> float:
    """Reads until the server closes; the seconds it took (fails past `limite`)."""
    inicio = time.monotonic()
    s.settimeout(limite)
    try:
        while s.recv(4096):
            pass
    except (ConnectionResetError, TimeoutError):
        pass
    levou = time.monotonic() - inicio
    assert levou < limite, f"connection still open after {levou:.1f} s"
    return levou


def _saude(url: str) -> int:
    return httpx.get(f"{url}/saude", timeout=5).status_code


def test_an_idle_connection_is_dropped_within_its_timeout(worker: str) -> None:
    with _conectar(worker) as s:
        levou = _fechada_em(s)
    assert 0.9 <= levou < 10, levou


def test_a_kept_alive_connection_idle_after_its_answer_is_dropped(worker: str) -> None:
    with _conectar(worker) as s:
        s.sendall(b"GET /saude HTTP/1.1\r\nHost: x\r\n\r\n")
        assert s.recv(4096).startswith(b"HTTP/1.1 200")
        levou = _fechada_em(s)
    assert levou < 10, levou


def test_a_half_sent_head_is_dropped_while_others_are_served(worker: str) -> None:
    with _conectar(worker) as s:
        inicio = time.monotonic()
        s.sendall(b"POST /classificar HTTP/1.1\r\nHost: x\r\nContent-Type: app")
        assert _saude(worker) == 200
        _fechada_em(s)
        levou = time.monotonic() - inicio
    assert 0.9 <= levou < 10, levou


def test_a_body_that_stops_arriving_is_dropped(worker: str) -> None:
    with _conectar(worker) as s:
        s.sendall(
            b"POST /classificar HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b'Content-Length: 100\r\n\r\n{"sku":'
        )
        levou = _fechada_em(s)
    assert levou < 10, levou


def test_the_connection_cap_holds_and_frees_up() -> None:
    # Its own worker, idle connections kept 60 s: the cap, not a timer, must be what refuses.
    with _iniciar(ocioso="60s") as url:
        _cap_holds_and_frees_up(url)


def _cap_holds_and_frees_up(url: str) -> None:
    abertas = [_conectar(url) for _ in range(MAX_CONEXOES)]
    try:
        with _conectar(url) as s:
            resposta = s.recv(4096)
        assert resposta.startswith(b"HTTP/1.1 503"), resposta
        assert "conexões".encode() in resposta and b"application/json" in resposta, resposta
        try:
            status = _saude(url)
        except httpx.TransportError:
            status = 503  # closed before httpx read the refusal
        assert status == 503
    finally:
        for a in abertas:
            a.close()
    prazo = time.monotonic() + 10
    while True:
        try:
            if _saude(url) == 200:
                break
        except httpx.TransportError:
            pass
        assert time.monotonic() < prazo, "no connection slot freed"
        time.sleep(0.05)  # polling a condition, with a deadline
