"""FastAPI app of the tag-worker (SPEC §7.1, §9.4).

`uvicorn app.main:app --port 18000` serves the module-level `app`, built from the environment;
tests build their own with `create_app(Configuracao(...))`.

Routes:
- `POST /classificar` — `PedidoClassificacao` → 200 `Classificacao`; invalid body → 422;
  classifier unavailable → 503 `{"detail": "..."}`; when `TAG_WORKER_TOKEN` is set, a request
  without `Authorization: Bearer <token>` → 401 `{"detail": "..."}`.
- `GET /saude` → 200 `{"status": "ok"}`, always open (a health check carries no data).
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI, HTTPException, Request, status
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from . import __version__
from .classificador import ClassificacaoIndisponivel, Classificador
from .config import Configuracao
from .llm import ClassificadorGroq, novo_cliente_http
from .modelos import Classificacao, PedidoClassificacao
from .palavras_chave import ClassificadorPalavrasChave

# A child of uvicorn's logger, so its handlers (configured by uvicorn) print these lines.
log = logging.getLogger("uvicorn.error.tag_worker")


def _verificador_de_token(config: Configuracao):
    """A dependency that enforces the Bearer token when one is configured (else a no-op)."""
    if config.tag_worker_token is None:

        async def sem_token() -> None:
            return None

        return sem_token

    esperado = config.tag_worker_token.get_secret_value().encode("utf-8")

    async def exigir_token(request: Request) -> None:
        cabecalho = request.headers.get("authorization", "")
        esquema, _, credencial = cabecalho.partition(" ")
        if esquema.lower() != "bearer" or not credencial.strip():
            raise HTTPException(
                status_code=status.HTTP_401_UNAUTHORIZED,
                detail="token ausente: envie o cabeçalho Authorization: Bearer <TAG_WORKER_TOKEN>",
                headers={"WWW-Authenticate": "Bearer"},
            )
        if not hmac.compare_digest(credencial.strip().encode("utf-8"), esperado):
            raise HTTPException(
                status_code=status.HTTP_401_UNAUTHORIZED,
                detail="token inválido",
                headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
            )

    return exigir_token


def create_app(config: Configuracao | None = None) -> FastAPI:
    """Build the app; the classifier is chosen here: LLM when a key is set, else keywords."""
    if config is None:
        config = carregar_configuracao()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if config.usa_llm:
            async with novo_cliente_http(config) as cliente:
                app.state.classificador = ClassificadorGroq(config, cliente)
                log.info(
                    "classificador: LLM (modelo %s, %s, timeout %gs)",
                    config.groq_modelo,
                    config.groq_url,
                    config.groq_timeout_segundos,
                )
                yield
        else:
            app.state.classificador = ClassificadorPalavrasChave()
            log.info("classificador: palavras-chave (GROQ_API_KEY não definida)")
            yield

    app = FastAPI(title="tag-worker", version=__version__, lifespan=lifespan)
    app.state.config = config
    exigir_token = _verificador_de_token(config)

    @app.exception_handler(ClassificacaoIndisponivel)
    async def _indisponivel(_request: Request, erro: ClassificacaoIndisponivel) -> JSONResponse:
        return JSONResponse(
            status_code=status.HTTP_503_SERVICE_UNAVAILABLE, content={"detail": erro.motivo}
        )

    @app.post(
        "/classificar",
        response_model=Classificacao,
        dependencies=[Depends(exigir_token)],
        responses={
            401: {
                "description": "token ausente ou inválido (quando TAG_WORKER_TOKEN está definido)"
            },
            503: {"description": "classificador indisponível"},
        },
    )
    async def classificar(pedido: PedidoClassificacao, request: Request) -> Classificacao:
        classificador: Classificador = request.app.state.classificador
        return await classificador.classificar(pedido)

    @app.get("/saude")
    async def saude() -> dict[str, str]:
        return {"status": "ok"}

    return app


def carregar_configuracao() -> Configuracao:
    """Read the configuration from the environment and `.env` files, or exit with the reason."""
    try:
        return Configuracao()
    except ValidationError as erro:
        motivos = "; ".join(e["msg"].removeprefix("Value error, ") for e in erro.errors())
        raise SystemExit(f"tag-worker: configuração inválida: {motivos}") from None


app = create_app()
