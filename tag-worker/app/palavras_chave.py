"""Deterministic keyword classifier (SPEC §7.3), used when no LLM key is configured.

The same description always gives the same answer; it needs no network and never fails.
"""

from __future__ import annotations

import re
import unicodedata

from .modelos import Categoria, Classificacao, PedidoClassificacao, normalizar_tags

TOKEN = re.compile(r"[\wçãõáéíóúâêô]+")
TAMANHO_MINIMO_TOKEN = 2
STOPWORDS = frozenset({"de", "da", "do", "com", "sem", "e", "em", "para", "un", "und", "cx", "pct"})

# Checked in this order: the first category whose keywords meet the tokens wins
# ("COCA COLA 2L PET" is bebidas, not pet).
PALAVRAS_CHAVE: tuple[tuple[Categoria, frozenset[str]], ...] = (
    (
        Categoria.BEBIDAS,
        frozenset(
            {
                "refrigerante",
                "refri",
                "coca",
                "guarana",
                "suco",
                "agua",
                "água",
                "cerveja",
                "vinho",
                "cha",
                "chá",
                "energetico",
                "energético",
                "isotonico",
                "isotônico",
            }
        ),
    ),
    (
        Categoria.LATICINIOS,
        frozenset({"leite", "iogurte", "queijo", "manteiga", "requeijao", "requeijão", "nata"}),
    ),
    (
        Categoria.MERCEARIA,
        frozenset(
            {
                "arroz",
                "feijao",
                "feijão",
                "macarrao",
                "macarrão",
                "acucar",
                "açúcar",
                "cafe",
                "café",
                "farinha",
                "oleo",
                "óleo",
                "sal",
                "biscoito",
                "molho",
            }
        ),
    ),
    (
        Categoria.HORTIFRUTI,
        frozenset({"banana", "maca", "maçã", "tomate", "alface", "batata", "cebola", "laranja"}),
    ),
    (Categoria.PADARIA, frozenset({"pao", "pão", "bolo", "torrada"})),
    (
        Categoria.CARNES,
        frozenset(
            {
                "carne",
                "frango",
                "picanha",
                "linguica",
                "linguiça",
                "bovina",
                "suina",
                "suína",
            }
        ),
    ),
    (Categoria.CONGELADOS, frozenset({"congelado", "congelada", "sorvete", "pizza", "lasanha"})),
    (
        Categoria.LIMPEZA,
        frozenset({"detergente", "sabao", "sabão", "desinfetante", "amaciante", "alvejante"}),
    ),
    (
        Categoria.HIGIENE,
        frozenset({"shampoo", "sabonete", "creme", "dental", "desodorante", "papel"}),
    ),
    (Categoria.PET, frozenset({"racao", "ração", "pet", "cachorro", "gato"})),
)


def tokens(descricao: str) -> list[str]:
    """Lowercased word tokens of the description, without stopwords and one-letter words.

    Duplicates are kept here (normalization removes them). The text is NFC-normalized first,
    so a decomposed "café" (e + combining accent) tokenizes as the composed one.
    """
    texto = unicodedata.normalize("NFC", descricao.lower())
    return [
        token
        for token in TOKEN.findall(texto)
        if len(token) >= TAMANHO_MINIMO_TOKEN and token not in STOPWORDS
    ]


def categoria_de(lista_tokens: list[str]) -> Categoria:
    """The first category, in the fixed order, whose keywords meet the tokens; else `outros`."""
    conjunto = set(lista_tokens)
    for categoria, palavras in PALAVRAS_CHAVE:
        if not palavras.isdisjoint(conjunto):
            return categoria
    return Categoria.OUTROS


def classificar_por_palavras_chave(descricao: str) -> Classificacao:
    """Classify a description by keywords: tags are its tokens, or `[categoria]` if none.

    When no token survives the tag normalization (every one longer than 30 characters), the
    tags are `[categoria]` as well, so this classifier always answers.
    """
    lista = tokens(descricao)
    categoria = categoria_de(lista)
    tags = normalizar_tags(lista) or [categoria.value]
    return Classificacao(tags=tags, categoria=categoria)


class ClassificadorPalavrasChave:
    """The keyword classifier behind the `Classificador` protocol."""

    nome = "palavras-chave"

    async def classificar(self, pedido: PedidoClassificacao) -> Classificacao:
        return classificar_por_palavras_chave(pedido.descricao)
