"""FastAPI app of the tag-worker (SPEC §7.1, §9.4).

`uvicorn app.main:app --port 18000` serves the module-level `app`, built from the environment
(the console script, `python -m app.cli`, serves it with its connection bounds: `app/conexoes.py`);
tests build their own with `create_app(Configuracao(...))`.

Routes:
- `POST /classificar` — `PedidoClassificacao` → 200 `Classificacao`; invalid body → 422;
  classifier unavailable → 503 `{"detail": "..."}`; when `TAG_WORKER_TOKEN` is set, a request
  without `Authorization: Bearer <token>` → 401 `{"detail": "..."}` before its body is read; a
  body over 64 KiB → 413 (`app/porteiro.py`). With a token, `/docs`, `/redoc` and
  `/openapi.json` are off.
- `GET /saude` → 200 `{"status": "ok"}`, always open (a health check carries no data).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request, status
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from . import __version__
from .classificador import ClassificacaoIndisponivel, Classificador
from .config import Configuracao
from .llm import ClassificadorGroq, novo_cliente_http
from .modelos import Classificacao, PedidoClassificacao
from .palavras_chave import ClassificadorPalavrasChave
from .porteiro import Porteiro

# A child of uvicorn's logger, so its handlers (configured by uvicorn) print these lines.
log = logging.getLogger("uvicorn.error.tag_worker")


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

    token = config.tag_worker_token.get_secret_value() if config.tag_worker_token else None
    # With a token, the interactive docs and the schema are off: nothing is open but /saude.
    sem_docs = {"docs_url": None, "redoc_url": None, "openapi_url": None} if token else {}
    app = FastAPI(title="tag-worker", version=__version__, lifespan=lifespan, **sem_docs)
    app.state.config = config
    # Token and body size are checked before FastAPI reads the body (see app/porteiro.py).
    app.add_middleware(Porteiro, token=token)

    @app.exception_handler(ClassificacaoIndisponivel)
    async def _indisponivel(_request: Request, erro: ClassificacaoIndisponivel) -> JSONResponse:
        return JSONResponse(
            status_code=status.HTTP_503_SERVICE_UNAVAILABLE, content={"detail": erro.motivo}
        )

    @app.post(
        "/classificar",
        response_model=Classificacao,
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
