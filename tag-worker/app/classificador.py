"""What every classifier offers, and the error that turns into HTTP 503."""

from __future__ import annotations

from typing import Protocol

from .modelos import Classificacao, PedidoClassificacao


class ClassificacaoIndisponivel(Exception):
    """The classifier cannot answer now; `motivo` (pt-BR) becomes the 503 body's `detail`."""

    def __init__(self, motivo: str) -> None:
        super().__init__(motivo)
        self.motivo = motivo


class Classificador(Protocol):
    """A product classifier. `nome` identifies it in logs."""

    nome: str

    async def classificar(self, pedido: PedidoClassificacao) -> Classificacao:
        """Classify one product, or raise `ClassificacaoIndisponivel`."""
        ...
