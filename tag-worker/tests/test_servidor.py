"""The app served by a real uvicorn on a loopback port, and the console script's arguments."""

from __future__ import annotations

import threading
import time

import httpx
import pytest
import uvicorn
from conftest import configuracao

from app import cli
from app.main import create_app


def test_uvicorn_real_http11() -> None:
    servidor = uvicorn.Server(
        uvicorn.Config(
            create_app(configuracao()), host="127.0.0.1", port=0, log_level="warning", lifespan="on"
        )
    )
    thread = threading.Thread(target=servidor.run, daemon=True)
    thread.start()
    try:
        prazo = time.monotonic() + 10
        while not servidor.started:
            assert thread.is_alive(), "uvicorn stopped before starting"
            assert time.monotonic() < prazo, "uvicorn did not start within 10 s"
            time.sleep(0.01)  # polling a condition, with a deadline
        porta = servidor.servers[0].sockets[0].getsockname()[1]
        with httpx.Client(base_url=f"http://127.0.0.1:{porta}", timeout=2) as cliente:
            assert cliente.get("/saude").json() == {"status": "ok"}
            resposta = cliente.post(
                "/classificar", json={"sku": "7894900011517", "descricao": "COCA COLA 2L PET"}
            )
            assert resposta.http_version == "HTTP/1.1"
            assert resposta.json() == {
                "tags": ["coca", "cola", "2l", "pet"],
                "categoria": "bebidas",
            }
    finally:
        servidor.should_exit = True
        thread.join(timeout=10)
    assert not thread.is_alive()


def test_cli_argumentos(monkeypatch: pytest.MonkeyPatch) -> None:
    chamadas: list[dict] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: chamadas.append(kw))
    monkeypatch.delenv("TAG_WORKER_HOST", raising=False)
    monkeypatch.delenv("TAG_WORKER_PORTA", raising=False)
    cli.main([])
    assert {k: chamadas[-1][k] for k in ("host", "port", "log_level")} == {
        "host": "127.0.0.1",
        "port": 18000,
        "log_level": "info",
    }
    # Always served with the connection bounds (app/conexoes.py).
    assert chamadas[-1]["http"].__name__ == "ProtocoloGuardado"
    cli.main(["--host", "0.0.0.0", "--port", "18999"])
    assert chamadas[-1]["host"] == "0.0.0.0" and chamadas[-1]["port"] == 18999
    monkeypatch.setenv("TAG_WORKER_PORTA", "18123")
    monkeypatch.setenv("TAG_WORKER_HOST", "::1")
    cli.main([])
    assert chamadas[-1]["host"] == "::1" and chamadas[-1]["port"] == 18123
    with pytest.raises(SystemExit):
        cli.main(["--port", "70000"])
