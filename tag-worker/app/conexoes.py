"""The tag-worker's connection bounds (issue 25), below the ASGI app.

uvicorn has a keep-alive timeout (after an answer) and `limit_concurrency` (503 to a request once
too many are open), but nothing bounds a connection that never completes its head, a body that
stops arriving, a connection that sends nothing at all, or how many such connections are held:
1 100 half-open connections were accepted and kept. The ASGI app (`porteiro.py`) only sees a
request once its head is complete, so these bounds live in uvicorn's HTTP protocol instead:
[`protocolo`] subclasses its httptools protocol with one timer per phase of a connection.

| phase                                          | bound          | past it                     |
|------------------------------------------------|----------------|-----------------------------|
| no request yet (new, or after an answer)       | `ocioso`       | the connection is closed    |
| from a request's first byte to its head's end  | `cabecalho`    | the connection is closed    |
| from the head's end to the body's end          | `corpo`        | the connection is closed    |
| the app working and answering                  | (the app's)    |                             |

and at most `max_conexoes` connections at once: one more is answered 503 (JSON `detail`, as the
app's own errors) and closed before anything is read. The console script (`app/cli.py`) serves
the app with this protocol; every launcher (the systemd unit, `giro dev`, the tests) goes
through it.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = logging.getLogger("uvicorn.error.tag_worker")


@dataclass(frozen=True)
class Limites:
    """Seconds per phase, and the connection cap (the console script's defaults)."""

    cabecalho: float = 10.0
    corpo: float = 10.0
    # uvicorn's own keep-alive default: clients already live with it.
    ocioso: float = 5.0
    max_conexoes: int = 256


def _resposta_503() -> bytes:
    corpo = json.dumps(
        {"detail": "conexões demais abertas; tente novamente"}, ensure_ascii=False
    ).encode("utf-8")
    cabeca = (
        "HTTP/1.1 503 Service Unavailable\r\n"
        "content-type: application/json\r\n"
        f"content-length: {len(corpo)}\r\n"
        "retry-after: 1\r\n"
        "connection: close\r\n\r\n"
    )
    return cabeca.encode("ascii") + corpo


RESPOSTA_503 = _resposta_503()


def protocolo(limites: Limites) -> type[HttpToolsProtocol]:
    """uvicorn's httptools protocol with `limites` (pass it as `uvicorn.run(http=...)`)."""

    class ProtocoloGuardado(HttpToolsProtocol):
        _timer: asyncio.TimerHandle | None = None
        _fase: str = "ocioso"

        def _armar(self, fase: str, segundos: float) -> None:
            self._desarmar()
            self._fase = fase
            self._timer = self.loop.call_later(segundos, self._expirou, fase)

        def _desarmar(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

        def _expirou(self, fase: str) -> None:
            self._timer = None
            if not self.transport.is_closing():
                log.debug("conexão fechada: tempo esgotado (%s)", fase)
                self.transport.close()

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            # This connection is already counted in `self.connections`.
            if len(self.connections) > limites.max_conexoes:
                self._fase = "recusada"
                transport.write(RESPOSTA_503)
                transport.close()
                return
            self._armar("ocioso", limites.ocioso)

        def data_received(self, data: bytes) -> None:
            if self._fase == "recusada":
                return
            if self._fase == "ocioso" and data:
                self._armar("cabecalho", limites.cabecalho)
            super().data_received(data)

        def on_headers_complete(self) -> None:
            self._armar("corpo", limites.corpo)
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            # The request is in; the app's time is its own (the classifier has its timeout).
            self._desarmar()
            self._fase = "app"
            super().on_message_complete()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            # Not while a pipelined request is being answered, nor a next head arriving.
            ocioso = self.cycle is None or self.cycle.response_complete
            if not self.transport.is_closing() and self._fase == "app" and ocioso:
                self._armar("ocioso", limites.ocioso)

        def connection_lost(self, exc: Exception | None) -> None:
            self._desarmar()
            super().connection_lost(exc)

    return ProtocoloGuardado
