-- Girô (issue 40): a search word shorter than a trigram (one or two letters) that few products
-- hold (`zq`) read the whole catalogue: V29's trigram index has nothing to intersect for it, so
-- `strpos` ran on every text (30 ms on 100 000 products, growing with the catalogue; a query any
-- client can send). Here every character of `busca` is written three times: a word of one or
-- two letters is a substring of `busca` exactly when the word so tripled (`zq` → `zzzqqq`, two to
-- four trigrams) is one of this text, which a trigram index finds (about 1 ms). The search asks
-- it only when every word is that short, of ASCII letters and digits, and few products match
-- (crates/giro-servicos/src/mercado/produto.rs, "Words"); common short words walk V28's order.
-- Like V29, no pending list, and it changes only with a product's name, tags or listing.
CREATE FUNCTION giro_triplicar(t text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $$ SELECT regexp_replace(t, '(.)', '\1\1\1', 'g') $$;
CREATE INDEX ix_produto_vitrine_busca_curta
    ON produto_vitrine USING gin (giro_triplicar(busca) gin_trgm_ops)
    WITH (fastupdate = off) WHERE listado;
