"""Girô tag-worker: classifies product descriptions into tags and a storefront category."""

__version__ = "0.1.0"
