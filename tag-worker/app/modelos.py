"""Request and response models of `POST /classificar` (SPEC §7.1, §7.2, §3.15)."""

from __future__ import annotations

import re
import unicodedata
from enum import StrEnum

from pydantic import BaseModel, Field, field_validator

MAXIMO_TAGS = 8
TAMANHO_MAXIMO_TAG = 30
PADRAO_SKU = r"^([0-9]{8}|[0-9]{12,14})$"

_ESPACOS = re.compile(r"\s+")


class Categoria(StrEnum):
    """Storefront categories; the values are the wire values, in the spec's order."""

    BEBIDAS = "bebidas"
    LATICINIOS = "laticinios"
    MERCEARIA = "mercearia"
    HORTIFRUTI = "hortifruti"
    PADARIA = "padaria"
    CARNES = "carnes"
    CONGELADOS = "congelados"
    LIMPEZA = "limpeza"
    HIGIENE = "higiene"
    PET = "pet"
    OUTROS = "outros"


class PedidoClassificacao(BaseModel):
    """Body of `POST /classificar`: the product's SKU (EAN-8 or 12..14 digits) and description."""

    sku: str = Field(pattern=PADRAO_SKU)
    descricao: str = Field(min_length=1, max_length=255)


def normalizar_tag(tag: str) -> str:
    """NFC, whitespace runs collapsed to one space, stripped, lowercased."""
    return _ESPACOS.sub(" ", unicodedata.normalize("NFC", tag)).strip().lower()


def normalizar_tags(tags: list[str]) -> list[str]:
    """Normalize each tag and keep the first `MAXIMO_TAGS` usable, distinct ones (may be empty)."""
    resultado: list[str] = []
    vistas: set[str] = set()
    for bruta in tags:
        tag = normalizar_tag(bruta)
        if not tag or len(tag) > TAMANHO_MAXIMO_TAG or tag in vistas:
            continue
        vistas.add(tag)
        resultado.append(tag)
        if len(resultado) == MAXIMO_TAGS:
            break
    return resultado


class Classificacao(BaseModel):
    """Tags and category of a product; the tags are normalized on validation (SPEC §7.2)."""

    tags: list[str]
    categoria: Categoria

    @field_validator("tags")
    @classmethod
    def _normalizar(cls, tags: list[str]) -> list[str]:
        normalizadas = normalizar_tags(tags)
        if not normalizadas:
            raise ValueError("nenhuma tag utilizável após a normalização")
        return normalizadas
