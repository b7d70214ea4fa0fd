"""The `tag-worker` console script: serves `app.main:app` with uvicorn.

Host and port come from `--host`/`--port`, else `TAG_WORKER_HOST`/`TAG_WORKER_PORTA`, else
`127.0.0.1:18000`. The connection bounds (`app/conexoes.py`) come from the environment:
`TAG_WORKER_TIMEOUT_CABECALHO` (10s), `TAG_WORKER_TIMEOUT_CORPO` (10s), `TAG_WORKER_TIMEOUT_OCIOSO`
(5s) and `TAG_WORKER_MAX_CONEXOES` (256). `python -m app.cli` is the same as the script; every
launcher uses it, so the worker is never served without its bounds.
"""

from __future__ import annotations

import argparse
import os

from .conexoes import Limites

PORTA_PADRAO = 18000
HOST_PADRAO = "127.0.0.1"


def _porta(valor: str) -> int:
    try:
        porta = int(valor)
    except ValueError:
        raise argparse.ArgumentTypeError(f"porta inválida: {valor!r}") from None
    if not 0 < porta < 65536:
        raise argparse.ArgumentTypeError(f"porta fora de 1..65535: {porta}")
    return porta


def limites_do_ambiente() -> Limites:
    """The connection bounds from `TAG_WORKER_*` (see the module doc); a bad value stops here."""
    from .config import duracao_em_segundos

    padrao = Limites()

    def duracao(nome: str, valor_padrao: float) -> float:
        valor = os.environ.get(nome) or ""
        try:
            return duracao_em_segundos(valor) if valor.strip() else valor_padrao
        except ValueError as erro:
            raise SystemExit(f"tag-worker: {nome}: {erro}") from None

    bruto = (os.environ.get("TAG_WORKER_MAX_CONEXOES") or "").strip()
    try:
        maximo = int(bruto) if bruto else padrao.max_conexoes
    except ValueError:
        raise SystemExit(f"tag-worker: TAG_WORKER_MAX_CONEXOES inválido: {bruto!r}") from None
    if maximo < 1:
        raise SystemExit("tag-worker: TAG_WORKER_MAX_CONEXOES deve ser pelo menos 1")
    return Limites(
        cabecalho=duracao("TAG_WORKER_TIMEOUT_CABECALHO", padrao.cabecalho),
        corpo=duracao("TAG_WORKER_TIMEOUT_CORPO", padrao.corpo),
        ocioso=duracao("TAG_WORKER_TIMEOUT_OCIOSO", padrao.ocioso),
        max_conexoes=maximo,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="tag-worker", description="Classificador de tags e categoria de produtos do Girô."
    )
    parser.add_argument(
        "--host",
        default=os.environ.get("TAG_WORKER_HOST") or HOST_PADRAO,
        help="endereço de escuta (TAG_WORKER_HOST; padrão %(default)s)",
    )
    parser.add_argument(
        "--port",
        "--porta",
        dest="porta",
        type=_porta,
        default=_porta(os.environ.get("TAG_WORKER_PORTA") or str(PORTA_PADRAO)),
        help="porta de escuta (TAG_WORKER_PORTA; padrão %(default)s)",
    )
    parser.add_argument(
        "--log-level",
        default=os.environ.get("TAG_WORKER_LOG_LEVEL") or "info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="nível de log (TAG_WORKER_LOG_LEVEL; padrão %(default)s)",
    )
    args = parser.parse_args(argv)

    limites = limites_do_ambiente()

    import uvicorn

    from .conexoes import protocolo
    from .main import app

    uvicorn.run(
        app,
        host=args.host,
        port=args.porta,
        log_level=args.log_level,
        http=protocolo(limites),
        # uvicorn's own timer after an answer, kept in step with the idle bound.
        timeout_keep_alive=max(1, round(limites.ocioso)),
    )


if __name__ == "__main__":
    main()
