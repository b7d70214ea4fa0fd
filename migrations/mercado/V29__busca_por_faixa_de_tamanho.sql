-- Girô (issue 40): the storefront's search reads what it answers, not every match of its words
-- (crates/giro-servicos/src/mercado/produto.rs, "Rank"). With many matches it asks this index
-- for them one text length at a time, shortest first, the length and every word's trigrams
-- intersected here, and stops at a page; with few, it intersects the trigrams alone (a GIN index
-- serves any of its columns) and sorts them. It replaces V21's trigram index, which the planner
-- would otherwise pick for the per-length reads, intersecting the words over every length each
-- time. V28's B-tree stays: it gives the shortest and longest lengths, and it reads one length in
-- order when no word has a trigram. `btree_gin` (trusted, PG 13+) lets a GIN index hold the
-- integer. No pending list (fastupdate off): every per-length probe would scan all of it again
-- (1.5 ms a probe with 2 000 products pending, measured); this index changes only with a
-- product's name, tags or listing, or an update that cannot be HOT.
CREATE EXTENSION IF NOT EXISTS btree_gin;
DROP INDEX ix_produto_vitrine_busca;
CREATE INDEX ix_produto_vitrine_busca_por_tamanho
    ON produto_vitrine USING gin (length(busca), busca gin_trgm_ops)
    WITH (fastupdate = off) WHERE listado;
