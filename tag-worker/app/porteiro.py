"""The door of the tag-worker (issue 13), a plain ASGI middleware in front of FastAPI.

Before FastAPI reads or parses anything:
- when `TAG_WORKER_TOKEN` is set, every route but `GET /saude` needs `Authorization: Bearer
  <token>` (compared in constant time): 401 otherwise, the body never read;
- a body larger than `LIMITE_CORPO` (64 KiB) is 413: refused from its `Content-Length` without
  reading it, or, without one (chunked), as soon as the bytes read pass the limit.

So an unauthenticated or oversized request costs no memory, whatever its size.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

LIMITE_CORPO = 64 * 1024

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

ROTAS_ABERTAS = frozenset({"/saude"})


async def responder(
    send: Send, status: int, detalhe: str, cabecalhos: list[tuple[bytes, bytes]] | None = None
) -> None:
    corpo = json.dumps({"detail": detalhe}, ensure_ascii=False).encode("utf-8")
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(corpo)).encode()),
        # The body was not read: the connection cannot be reused.
        (b"connection", b"close"),
        *(cabecalhos or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": corpo})


class Porteiro:
    def __init__(self, app: ASGIApp, token: str | None, limite: int = LIMITE_CORPO) -> None:
        self.app = app
        self.esperado = token.encode("utf-8") if token else None
        self.limite = limite

    def _recusa_token(self, scope: Scope) -> tuple[str, bytes] | None:
        if self.esperado is None or scope.get("path") in ROTAS_ABERTAS:
            return None
        cabecalho = b""
        for nome, valor in scope.get("headers", []):
            if nome.lower() == b"authorization":
                cabecalho = valor
                break
        esquema, _, credencial = cabecalho.partition(b" ")
        if esquema.lower() != b"bearer" or not credencial.strip():
            return (
                "token ausente: envie o cabeçalho Authorization: Bearer <TAG_WORKER_TOKEN>",
                b"Bearer",
            )
        if not hmac.compare_digest(credencial.strip(), self.esperado):
            return ("token inválido", b'Bearer error="invalid_token"')
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        recusa = self._recusa_token(scope)
        if recusa is not None:
            detalhe, desafio = recusa
            await responder(send, 401, detalhe, [(b"www-authenticate", desafio)])
            return
        for nome, valor in scope.get("headers", []):
            if nome.lower() == b"content-length":
                try:
                    tamanho = int(valor)
                except ValueError:
                    await responder(send, 400, "Content-Length inválido")
                    return
                if tamanho > self.limite:
                    await responder(send, 413, f"corpo maior que {self.limite // 1024} KiB")
                    return
        lidos = 0
        excedeu = False

        async def receber() -> Message:
            nonlocal lidos, excedeu
            if excedeu:
                return {"type": "http.request", "body": b"", "more_body": False}
            mensagem = await receive()
            if mensagem["type"] == "http.request":
                lidos += len(mensagem.get("body", b""))
                if lidos > self.limite:
                    # Stop reading; whatever the app answers to the cut body is replaced by 413.
                    excedeu = True
                    return {"type": "http.request", "body": b"", "more_body": False}
            return mensagem

        async def enviar(mensagem: Message) -> None:
            if not excedeu:
                await send(mensagem)
            elif mensagem["type"] == "http.response.start":
                await responder(send, 413, f"corpo maior que {self.limite // 1024} KiB")

        await self.app(scope, receber, enviar)
