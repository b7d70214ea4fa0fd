"""Models and the tag normalization of SPEC §7.2."""

from __future__ import annotations

import pytest
from conftest import CATEGORIAS
from pydantic import ValidationError

from app.modelos import (
    MAXIMO_TAGS,
    TAMANHO_MAXIMO_TAG,
    Categoria,
    Classificacao,
    PedidoClassificacao,
)


def tags(*brutas: str) -> list[str]:
    return Classificacao(tags=list(brutas), categoria="outros").tags


def test_categorias() -> None:
    assert [c.value for c in Categoria] == CATEGORIAS
    assert Categoria("pet") == "pet"


def test_nfc() -> None:
    decomposta = "cafe\u0301"
    assert tags(decomposta) == ["café"]
    assert tags(decomposta, "café") == ["café"]  # equal after NFC → duplicate


def test_espacos_colapsados_e_aparados() -> None:
    assert tags("  leite \t  integral\n ") == ["leite integral"]


def test_minusculas() -> None:
    assert tags("COCA-Cola", "ÁGUA") == ["coca-cola", "água"]


def test_vazias_descartadas() -> None:
    assert tags("", "   ", "\n", "pet") == ["pet"]


def test_longas_descartadas() -> None:
    limite = "x" * TAMANHO_MAXIMO_TAG
    assert tags("y" * (TAMANHO_MAXIMO_TAG + 1), limite) == [limite]
    # The length is measured after normalization.
    assert tags("  " + "z" * TAMANHO_MAXIMO_TAG + "   ") == ["z" * TAMANHO_MAXIMO_TAG]


def test_duplicatas_mantem_a_primeira() -> None:
    assert tags("Suco", "uva", "SUCO ", "suco", "Uva") == ["suco", "uva"]


def test_no_maximo_oito() -> None:
    brutas = [f"t{i}" for i in range(12)]
    assert tags(*brutas) == brutas[:MAXIMO_TAGS]
    assert MAXIMO_TAGS == 8


def test_oito_contadas_apos_descartes() -> None:
    brutas = ["", "a" * 31, "t0", "T0"] + [f"t{i}" for i in range(1, 10)]
    assert tags(*brutas) == [f"t{i}" for i in range(8)]


@pytest.mark.parametrize("brutas", [[], [""], ["   ", "a" * 31]])
def test_nenhuma_restante_e_erro(brutas: list[str]) -> None:
    with pytest.raises(ValidationError):
        Classificacao(tags=brutas, categoria="outros")


@pytest.mark.parametrize("categoria", ["Bebidas", "bebida", "", "eletronicos", None])
def test_categoria_fora_da_lista_e_erro(categoria: object) -> None:
    with pytest.raises(ValidationError):
        Classificacao(tags=["x"], categoria=categoria)


def test_tags_devem_ser_texto() -> None:
    with pytest.raises(ValidationError):
        Classificacao(tags=[1, 2], categoria="outros")
    with pytest.raises(ValidationError):
        Classificacao(tags="coca cola", categoria="outros")


@pytest.mark.parametrize("sku", ["12345678", "123456789012", "1234567890123", "12345678901234"])
def test_sku_valido(sku: str) -> None:
    assert PedidoClassificacao(sku=sku, descricao="x").sku == sku


@pytest.mark.parametrize(
    "sku",
    [
        "",
        "1234567",
        "123456789",
        "12345678901",
        "123456789012345",
        "1234567a",
        " 12345678",
        "12345678\n",
    ],
)
def test_sku_invalido(sku: str) -> None:
    with pytest.raises(ValidationError):
        PedidoClassificacao(sku=sku, descricao="x")


def test_descricao_de_1_a_255() -> None:
    assert PedidoClassificacao(sku="12345678", descricao="x" * 255)
    for descricao in ("", "x" * 256):
        with pytest.raises(ValidationError):
            PedidoClassificacao(sku="12345678", descricao=descricao)
