"""The `tag-worker` console script: serves `app.main:app` with uvicorn.

Host and port come from `--host`/`--port`, else `TAG_WORKER_HOST`/`TAG_WORKER_PORTA`, else
`127.0.0.1:18000`.
"""

from __future__ import annotations

import argparse
import os

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

    import uvicorn

    from .main import app

    uvicorn.run(app, host=args.host, port=args.porta, log_level=args.log_level)


if __name__ == "__main__":
    main()
