"""The deterministic keyword classifier (SPEC §7.3)."""

from __future__ import annotations

import asyncio

import pytest

from app.modelos import Categoria, PedidoClassificacao
from app.palavras_chave import (
    PALAVRAS_CHAVE,
    STOPWORDS,
    ClassificadorPalavrasChave,
    classificar_por_palavras_chave,
    tokens,
)


@pytest.mark.parametrize(
    ("descricao", "tags", "categoria"),
    [
        ("COCA COLA 2L PET", ["coca", "cola", "2l", "pet"], "bebidas"),
        ("LEITE INTEGRAL 1L", ["leite", "integral", "1l"], "laticinios"),
        ("DETERGENTE NEUTRO 500ML", ["detergente", "neutro", "500ml"], "limpeza"),
        ("PARAFUSO SEXTAVADO", ["parafuso", "sextavado"], "outros"),
    ],
)
def test_exemplos_da_especificacao(descricao: str, tags: list[str], categoria: str) -> None:
    resultado = classificar_por_palavras_chave(descricao)
    assert resultado.model_dump(mode="json") == {"tags": tags, "categoria": categoria}


def test_bebidas_vence_pet_pela_ordem() -> None:
    assert classificar_por_palavras_chave("RACAO GATO SUCO").categoria is Categoria.BEBIDAS
    assert classificar_por_palavras_chave("RACAO GATO 1KG").categoria is Categoria.PET


@pytest.mark.parametrize(
    ("descricao", "categoria"),
    [
        ("COCA COLA 2L PET", "bebidas"),
        ("BANANA PRATA KG", "hortifruti"),
        ("DETERGENTE NEUTRO 500ML", "limpeza"),
        ("PAO DE FORMA INTEGRAL 400G", "padaria"),
        ("CAFE TORRADO E MOIDO 500G", "mercearia"),
        ("LEITE UHT INTEGRAL 1L", "laticinios"),
        ("ARROZ BRANCO TIPO 1 5KG", "mercearia"),
        ("SABAO EM PO 1KG", "limpeza"),
        ("PICANHA BOVINA KG", "carnes"),
        ("LASANHA BOLONHESA 600G", "congelados"),
        ("CREME DENTAL 90G", "higiene"),
        ("MAÇÃ GALA KG", "hortifruti"),
        ("REQUEIJÃO CREMOSO 200G", "laticinios"),
    ],
)
def test_catalogo_de_demonstracao(descricao: str, categoria: str) -> None:
    assert classificar_por_palavras_chave(descricao).categoria == categoria


def test_mesma_entrada_mesma_saida() -> None:
    primeira = classificar_por_palavras_chave("CAFE TORRADO E MOIDO 500G")
    for _ in range(5):
        assert classificar_por_palavras_chave("CAFE TORRADO E MOIDO 500G") == primeira
    assert primeira.tags == ["cafe", "torrado", "moido", "500g"]


def test_stopwords_e_tokens_curtos_saem() -> None:
    assert {
        "de",
        "da",
        "do",
        "com",
        "sem",
        "e",
        "em",
        "para",
        "un",
        "und",
        "cx",
        "pct",
    } == STOPWORDS
    assert tokens("ARROZ TIPO 1 5KG CX 10 UN PARA PCT COM SEM DA DO E EM UND") == [
        "arroz",
        "tipo",
        "5kg",
        "10",
    ]


def test_acentos_e_pontuacao() -> None:
    resultado = classificar_por_palavras_chave("PÃO FRANCÊS (KG), c/ gergelim!")
    assert resultado.categoria is Categoria.PADARIA
    assert resultado.tags == ["pão", "francês", "kg", "gergelim"]


def test_descricao_decomposta_e_normalizada_em_nfc() -> None:
    resultado = classificar_por_palavras_chave("Cafe\u0301 Pilão")  # "Café" with a combining accent
    assert resultado.tags == ["café", "pilão"]
    assert resultado.categoria is Categoria.MERCEARIA


def test_duplicatas_removidas_e_no_maximo_oito() -> None:
    resultado = classificar_por_palavras_chave("suco suco uva uva aa bb cc dd ee ff gg hh ii")
    assert resultado.tags == ["suco", "uva", "aa", "bb", "cc", "dd", "ee", "ff"]
    assert resultado.categoria is Categoria.BEBIDAS


def test_sem_token_as_tags_sao_a_categoria() -> None:
    assert classificar_por_palavras_chave("1 - 2 / x").model_dump(mode="json") == {
        "tags": ["outros"],
        "categoria": "outros",
    }


def test_tokens_longos_demais_dao_tags_da_categoria() -> None:
    resultado = classificar_por_palavras_chave("a" * 31 + " " + "b" * 40)
    assert resultado.model_dump(mode="json") == {"tags": ["outros"], "categoria": "outros"}
    resultado = classificar_por_palavras_chave("leite " + "z" * 31)
    assert resultado.tags == ["leite"]


def test_ordem_e_conjuntos_de_categorias() -> None:
    assert [categoria for categoria, _ in PALAVRAS_CHAVE] == list(Categoria)[:-1]
    assert "pet" in dict(PALAVRAS_CHAVE)[Categoria.PET]
    assert "coca" in dict(PALAVRAS_CHAVE)[Categoria.BEBIDAS]


def test_classificador_assincrono() -> None:
    pedido = PedidoClassificacao(sku="7894900011517", descricao="COCA COLA 2L PET")
    resultado = asyncio.run(ClassificadorPalavrasChave().classificar(pedido))
    assert resultado.tags == ["coca", "cola", "2l", "pet"]
