"""HTTP routes in keyword mode, body validation and the optional token (SPEC §7.1, §9.4)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conftest import TOKEN, configuracao
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.main import create_app
from app.palavras_chave import ClassificadorPalavrasChave

COCA = {"sku": "7894900011517", "descricao": "COCA COLA 2L PET"}


def test_saude(cliente: TestClient) -> None:
    resposta = cliente.get("/saude")
    assert resposta.status_code == 200
    assert resposta.json() == {"status": "ok"}


def test_classificar_palavras_chave(cliente: TestClient) -> None:
    resposta = cliente.post("/classificar", json=COCA)
    assert resposta.status_code == 200
    assert resposta.headers["content-type"].startswith("application/json")
    assert resposta.json() == {"tags": ["coca", "cola", "2l", "pet"], "categoria": "bebidas"}
    assert isinstance(cliente.app.state.classificador, ClassificadorPalavrasChave)


def test_mesma_entrada_mesma_saida_pela_api(cliente: TestClient) -> None:
    corpo = {"sku": "12345678", "descricao": "PARAFUSO SEXTAVADO"}
    respostas = [cliente.post("/classificar", json=corpo).json() for _ in range(3)]
    assert respostas == [{"tags": ["parafuso", "sextavado"], "categoria": "outros"}] * 3


@pytest.mark.parametrize(
    "corpo",
    [
        {},
        {"sku": "7894900011517"},
        {"descricao": "COCA COLA 2L PET"},
        {"sku": "789490001151", "descricao": ""},
        {"sku": "7894900011517", "descricao": "x" * 256},
        {"sku": "1234567", "descricao": "COCA"},
        {"sku": "123456789", "descricao": "COCA"},
        {"sku": "12345678901", "descricao": "COCA"},
        {"sku": "123456789012345", "descricao": "COCA"},
        {"sku": "78949OOO11517", "descricao": "COCA"},
        {"sku": 7894900011517, "descricao": "COCA"},
        {"sku": "7894900011517", "descricao": None},
        ["7894900011517", "COCA"],
        "COCA COLA",
    ],
)
def test_corpo_invalido_422(cliente: TestClient, corpo: object) -> None:
    resposta = cliente.post("/classificar", json=corpo)
    assert resposta.status_code == 422
    assert "detail" in resposta.json()


def test_json_malformado_422(cliente: TestClient) -> None:
    resposta = cliente.post(
        "/classificar",
        content=b'{"sku": "12345678", ',
        headers={"Content-Type": "application/json"},
    )
    assert resposta.status_code == 422


def test_limites_aceitos(cliente: TestClient) -> None:
    for sku in ("12345678", "123456789012", "12345678901234"):
        assert cliente.post("/classificar", json={"sku": sku, "descricao": "x"}).status_code == 200
    resposta = cliente.post(
        "/classificar", json={"sku": "12345678", "descricao": "leite " + "a" * 249}
    )
    assert resposta.status_code == 200
    assert resposta.json()["categoria"] == "laticinios"


@pytest.fixture
def cliente_com_token() -> Iterator[TestClient]:
    with TestClient(create_app(configuracao(tag_worker_token=TOKEN))) as cliente:
        yield cliente


def test_token_correto_200(cliente_com_token: TestClient) -> None:
    resposta = cliente_com_token.post(
        "/classificar", json=COCA, headers={"Authorization": f"Bearer {TOKEN}"}
    )
    assert resposta.status_code == 200
    assert resposta.json()["categoria"] == "bebidas"


def test_esquema_bearer_sem_diferenciar_maiusculas(cliente_com_token: TestClient) -> None:
    resposta = cliente_com_token.post(
        "/classificar", json=COCA, headers={"Authorization": f"bearer {TOKEN}"}
    )
    assert resposta.status_code == 200


@pytest.mark.parametrize(
    "cabecalhos",
    [
        {},
        {"Authorization": ""},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer "},
        {"Authorization": TOKEN},
        {"Authorization": f"Basic {TOKEN}"},
        {"Authorization": f"Bearer {TOKEN[:-1]}"},
        {"Authorization": f"Bearer {TOKEN}x"},
        {"Authorization": f"Bearer {TOKEN.upper()}"},
        {"Authorization": f"Bearer {TOKEN}çãõ".encode()},
        {"X-Token": TOKEN},
    ],
)
def test_sem_o_token_exato_401(
    cliente_com_token: TestClient, cabecalhos: dict[str, str | bytes]
) -> None:
    resposta = cliente_com_token.post("/classificar", json=COCA, headers=cabecalhos)
    assert resposta.status_code == 401
    assert isinstance(resposta.json()["detail"], str) and resposta.json()["detail"]
    assert resposta.headers["www-authenticate"].startswith("Bearer")


def test_401_antes_de_validar_o_corpo(cliente_com_token: TestClient) -> None:
    assert cliente_com_token.post("/classificar", json={}).status_code == 401
    resposta = cliente_com_token.post(
        "/classificar", json={}, headers={"Authorization": f"Bearer {TOKEN}"}
    )
    assert resposta.status_code == 422


def test_saude_aberta_com_token(cliente_com_token: TestClient) -> None:
    resposta = cliente_com_token.get("/saude")
    assert resposta.status_code == 200
    assert resposta.json() == {"status": "ok"}


def test_sem_token_configurado_aceita_qualquer_cabecalho(cliente: TestClient) -> None:
    resposta = cliente.post("/classificar", json=COCA, headers={"Authorization": "Bearer qualquer"})
    assert resposta.status_code == 200


def test_app_do_modulo() -> None:
    from app.main import app

    assert isinstance(app, FastAPI)
    rotas = {
        (rota.path, tuple(sorted(rota.methods))) for rota in app.routes if hasattr(rota, "methods")
    }
    assert ("/classificar", ("POST",)) in rotas
    assert ("/saude", ("GET",)) in rotas
