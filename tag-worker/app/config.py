"""Configuration of the tag-worker (SPEC §1 and §7.3).

Read with pydantic-settings from the environment and from the env files `.env` then `../.env`
(relative to the working directory). Variables already set in the environment win over both
files; a key in both files takes `../.env`'s value (later files override earlier ones). Unknown
keys are ignored, so the same `.env` serves the Rust services too.

| field                   | environment (first wins)                  | default                                            |
|-------------------------|-------------------------------------------|----------------------------------------------------|
| `groq_api_key`          | `GROQ_API_KEY`                            | unset → keyword classifier                         |
| `groq_url`              | `LLM_BASE_URL`, `GROQ_URL`                | `https://api.groq.com/openai/v1/chat/completions`  |
| `groq_modelo`           | `LLM_MODEL`, `GROQ_MODELO`                | `openai/gpt-oss-20b`                               |
| `groq_timeout_segundos` | `LLM_TIMEOUT`, `GROQ_TIMEOUT_SEGUNDOS`    | `1.5` seconds (`"1.5s"`, `"1500ms"` or `1.5`)      |
| `tag_worker_token`      | `TAG_WORKER_TOKEN`                        | unset → no authentication                          |

The `GROQ_*` alternatives are the names the original tag-worker read (its pydantic-settings
field names), accepted so an old `.env` keeps working; the `LLM_*` names of the spec win.
"""

from __future__ import annotations

import re

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

URL_PADRAO = "https://api.groq.com/openai/v1/chat/completions"
MODELO_PADRAO = "openai/gpt-oss-20b"
TIMEOUT_PADRAO_SEGUNDOS = 1.5
TAMANHO_MINIMO_TOKEN = 16

_DURACAO = re.compile(r"^\s*(?P<valor>[0-9]+(?:\.[0-9]+)?|\.[0-9]+)\s*(?P<unidade>ms|s|m)?\s*$")
_MULTIPLICADOR = {"ms": 0.001, "s": 1.0, "m": 60.0, None: 1.0}


def duracao_em_segundos(valor: object) -> float:
    """Parse a duration: a bare number of seconds, or a number followed by `ms`, `s` or `m`.

    `"1.5s"` → 1.5, `"1500ms"` → 1.5, `"2"` → 2.0, `0.3` → 0.3. The result must be > 0.
    """
    if isinstance(valor, bool):
        raise ValueError("duração inválida")
    if isinstance(valor, (int, float)):
        segundos = float(valor)
    elif isinstance(valor, str):
        casamento = _DURACAO.match(valor.lower())
        if casamento is None:
            raise ValueError(
                f"duração inválida {valor!r}: use segundos ('1.5'), '1.5s' ou '1500ms'"
            )
        segundos = float(casamento["valor"]) * _MULTIPLICADOR[casamento["unidade"]]
    else:
        raise ValueError("duração inválida")
    if not segundos > 0 or segundos == float("inf"):
        raise ValueError("a duração deve ser maior que zero")
    return segundos


def _vazio_eh_ausente(valor: object) -> object:
    # Docker compose and shell scripts often pass an unset variable as "" — and SecretStr("")
    # would be truthy, which would select the LLM classifier with an empty key.
    if isinstance(valor, str) and not valor.strip():
        return None
    if isinstance(valor, SecretStr) and not valor.get_secret_value().strip():
        return None
    return valor


class Configuracao(BaseSettings):
    """The tag-worker settings; build one with keyword arguments in tests."""

    model_config = SettingsConfigDict(
        env_file=(".env", "../.env"),
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
    )

    groq_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("GROQ_API_KEY", "groq_api_key")
    )
    groq_url: str = Field(
        default=URL_PADRAO,
        validation_alias=AliasChoices("LLM_BASE_URL", "GROQ_URL", "groq_url"),
    )
    groq_modelo: str = Field(
        default=MODELO_PADRAO,
        validation_alias=AliasChoices("LLM_MODEL", "GROQ_MODELO", "groq_modelo"),
    )
    # Shorter than estoque's 2s call timeout, so the worker gives up before its caller does.
    groq_timeout_segundos: float = Field(
        default=TIMEOUT_PADRAO_SEGUNDOS,
        validation_alias=AliasChoices(
            "LLM_TIMEOUT", "GROQ_TIMEOUT_SEGUNDOS", "groq_timeout_segundos"
        ),
    )
    tag_worker_token: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("TAG_WORKER_TOKEN", "tag_worker_token")
    )

    @field_validator("groq_api_key", mode="before")
    @classmethod
    def _chave_vazia_eh_ausente(cls, valor: object) -> object:
        return _vazio_eh_ausente(valor)

    @field_validator("groq_url", "groq_modelo", mode="before")
    @classmethod
    def _texto_vazio_eh_padrao(cls, valor: object, info) -> object:
        if isinstance(valor, str) and not valor.strip():
            return URL_PADRAO if info.field_name == "groq_url" else MODELO_PADRAO
        return valor.strip() if isinstance(valor, str) else valor

    @field_validator("groq_url")
    @classmethod
    def _url_http(cls, valor: str) -> str:
        if not valor.lower().startswith(("http://", "https://")):
            raise ValueError(f"LLM_BASE_URL deve ser uma URL http(s), recebido {valor!r}")
        return valor

    @field_validator("groq_timeout_segundos", mode="before")
    @classmethod
    def _duracao(cls, valor: object) -> object:
        if isinstance(valor, str) and not valor.strip():
            return TIMEOUT_PADRAO_SEGUNDOS
        try:
            return duracao_em_segundos(valor)
        except ValueError as erro:
            raise ValueError(f"LLM_TIMEOUT: {erro}") from None

    @field_validator("tag_worker_token", mode="before")
    @classmethod
    def _token_vazio_eh_ausente(cls, valor: object) -> object:
        return _vazio_eh_ausente(valor)

    @field_validator("tag_worker_token")
    @classmethod
    def _token_longo(cls, valor: SecretStr | None) -> SecretStr | None:
        if valor is not None and len(valor.get_secret_value()) < TAMANHO_MINIMO_TOKEN:
            raise ValueError(
                f"TAG_WORKER_TOKEN deve ter pelo menos {TAMANHO_MINIMO_TOKEN} caracteres "
                "(gere um com `openssl rand -hex 32`) ou ficar vazio para não exigir token"
            )
        return valor

    @property
    def usa_llm(self) -> bool:
        """True when an API key is configured, so the LLM classifier is used."""
        return self.groq_api_key is not None
