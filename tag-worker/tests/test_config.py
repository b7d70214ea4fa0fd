"""Configuracao: env names, defaults, durations, empty values, token length (SPEC §1, §7.3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from app.config import Configuracao, duracao_em_segundos
from app.llm import ClassificadorGroq
from app.main import carregar_configuracao, create_app
from app.palavras_chave import ClassificadorPalavrasChave

VARIAVEIS = (
    "GROQ_API_KEY",
    "LLM_BASE_URL",
    "LLM_MODEL",
    "LLM_TIMEOUT",
    "TAG_WORKER_TOKEN",
    "GROQ_URL",
    "GROQ_MODELO",
    "GROQ_TIMEOUT_SEGUNDOS",
)


@pytest.fixture
def ambiente(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    """A clean environment, in an empty working directory (no `.env` around)."""
    for nome in VARIAVEIS:
        monkeypatch.delenv(nome, raising=False)
    trabalho = tmp_path / "tag-worker"
    trabalho.mkdir()
    monkeypatch.chdir(trabalho)
    return monkeypatch


def test_padroes(ambiente: pytest.MonkeyPatch) -> None:
    config = Configuracao()
    assert config.groq_api_key is None
    assert config.groq_url == "https://api.groq.com/openai/v1/chat/completions"
    assert config.groq_modelo == "openai/gpt-oss-20b"
    assert config.groq_timeout_segundos == 1.5
    assert config.tag_worker_token is None
    assert not config.usa_llm


def test_variaveis_de_ambiente(ambiente: pytest.MonkeyPatch) -> None:
    ambiente.setenv("GROQ_API_KEY", "gsk_chave")
    ambiente.setenv("LLM_BASE_URL", "http://127.0.0.1:9/v1/chat/completions")
    ambiente.setenv("LLM_MODEL", "llama-3.1-8b-instant")
    ambiente.setenv("LLM_TIMEOUT", "800ms")
    ambiente.setenv("TAG_WORKER_TOKEN", "t" * 16)
    config = Configuracao()
    assert config.groq_api_key is not None and config.groq_api_key.get_secret_value() == "gsk_chave"
    assert config.groq_url == "http://127.0.0.1:9/v1/chat/completions"
    assert config.groq_modelo == "llama-3.1-8b-instant"
    assert config.groq_timeout_segundos == pytest.approx(0.8)
    assert config.tag_worker_token is not None
    assert config.usa_llm
    assert "gsk_chave" not in repr(config) and "t" * 16 not in repr(config)


def test_nomes_do_original_aceitos_e_llm_vence(ambiente: pytest.MonkeyPatch) -> None:
    ambiente.setenv("GROQ_MODELO", "antigo")
    ambiente.setenv("GROQ_URL", "http://antigo.invalid/v1/chat/completions")
    ambiente.setenv("GROQ_TIMEOUT_SEGUNDOS", "3")
    config = Configuracao()
    assert (config.groq_modelo, config.groq_timeout_segundos) == ("antigo", 3.0)
    ambiente.setenv("LLM_MODEL", "novo")
    ambiente.setenv("LLM_TIMEOUT", "1s")
    config = Configuracao()
    assert (config.groq_modelo, config.groq_timeout_segundos) == ("novo", 1.0)


@pytest.mark.parametrize("vazia", ["", " ", "\t \n"])
def test_chave_vazia_e_ausente(ambiente: pytest.MonkeyPatch, vazia: str) -> None:
    ambiente.setenv("GROQ_API_KEY", vazia)
    ambiente.setenv("TAG_WORKER_TOKEN", vazia)
    config = Configuracao()
    assert config.groq_api_key is None and config.tag_worker_token is None
    assert Configuracao(_env_file=None, groq_api_key=vazia).groq_api_key is None


@pytest.mark.parametrize(
    ("texto", "segundos"),
    [
        ("1.5s", 1.5),
        ("1500ms", 1.5),
        ("1.5", 1.5),
        ("2", 2.0),
        (" 300ms ", 0.3),
        ("2S", 2.0),
        ("1m", 60.0),
        (".5s", 0.5),
        (0.3, 0.3),
        (2, 2.0),
    ],
)
def test_duracoes(texto: object, segundos: float) -> None:
    assert duracao_em_segundos(texto) == pytest.approx(segundos)
    assert Configuracao(
        _env_file=None, groq_timeout_segundos=texto
    ).groq_timeout_segundos == pytest.approx(segundos)


@pytest.mark.parametrize("texto", ["abc", "1.5 segundos", "-1s", "0", "0ms", "1h", "s", True])
def test_duracoes_invalidas(texto: object) -> None:
    with pytest.raises(ValidationError):
        Configuracao(_env_file=None, groq_timeout_segundos=texto)


def test_token_curto_e_erro(ambiente: pytest.MonkeyPatch) -> None:
    ambiente.setenv("TAG_WORKER_TOKEN", "curto-demais")
    with pytest.raises(ValidationError, match="TAG_WORKER_TOKEN"):
        Configuracao()
    with pytest.raises(SystemExit, match="TAG_WORKER_TOKEN.*openssl rand -hex 32"):
        carregar_configuracao()


def test_url_deve_ser_http() -> None:
    with pytest.raises(ValidationError, match="LLM_BASE_URL"):
        Configuracao(_env_file=None, groq_url="api.groq.com/openai/v1/chat/completions")


def test_arquivos_env(ambiente: pytest.MonkeyPatch) -> None:
    # Both `.env` and `../.env` are read, in that order, so a key set in both takes the value of
    # `../.env` (pydantic-settings: later files override earlier ones, as in the original).
    # The environment wins over both; unknown keys (the Rust services' variables) are ignored.
    Path("../.env").write_text(
        "MERCADO_PORTA=18080\nLLM_MODEL=do-pai\nGROQ_API_KEY=chave-do-pai\n",
        encoding="utf-8",
    )
    Path(".env").write_text(
        "LLM_MODEL=do-diretorio\nLLM_TIMEOUT=900ms\nOUTRA=1\n", encoding="utf-8"
    )
    config = Configuracao()
    assert config.groq_modelo == "do-pai"
    assert config.groq_timeout_segundos == pytest.approx(0.9)
    assert config.groq_api_key is not None
    ambiente.setenv("GROQ_API_KEY", "")
    ambiente.setenv("LLM_MODEL", "do-ambiente")
    config = Configuracao()
    assert config.groq_api_key is None
    assert config.groq_modelo == "do-ambiente"


def test_escolha_do_classificador_na_partida(ambiente: pytest.MonkeyPatch) -> None:
    with TestClient(create_app(Configuracao(_env_file=None))) as cliente:
        assert isinstance(cliente.app.state.classificador, ClassificadorPalavrasChave)
    ambiente.setenv("GROQ_API_KEY", "gsk_qualquer")
    with TestClient(create_app()) as cliente:
        assert isinstance(cliente.app.state.classificador, ClassificadorGroq)
