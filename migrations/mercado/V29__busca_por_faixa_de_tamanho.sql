-- Girô (issue 40): the storefront's search reads the matches one text length at a time, shortest
-- first, and stops at a page (crates/giro-servicos/src/mercado/produto.rs, "Rank"): each length's
-- matches come from this one index, the length and every word's trigrams intersected in it, so a
-- query reads the matches it answers, not every match of its words. It replaces V21's trigram
-- index (the planner would otherwise intersect the words over every length). V28's B-tree stays:
-- it gives the shortest and longest lengths, and it walks one length in order when no word has a
-- trigram. `btree_gin` (trusted, PG 13+) lets a GIN index hold the integer.
CREATE EXTENSION IF NOT EXISTS btree_gin;
DROP INDEX ix_produto_vitrine_busca;
CREATE INDEX ix_produto_vitrine_busca_por_tamanho
    ON produto_vitrine USING gin (length(busca), busca gin_trgm_ops)
    WITH (fastupdate = off) WHERE listado;
