-- Girô (issue 26): the storefront's search is accent- and case-insensitive and matches every word
-- of the query in the name or the tags, served by a trigram index (src/mercado/produto.rs states
-- the tokenisation). Both extensions are trusted (PG 13+), so the database's owner, who runs the
-- migrations, may create them.
CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- unaccent(text) is STABLE (it looks its dictionary up by search_path); naming the dictionary and
-- the schema makes the result depend on the argument only, so it may be IMMUTABLE and feed a
-- generated column and an index. A number and the word after it become one ("5 kg" → "5kg"), as
-- the query's words are joined (produto::palavras).
CREATE FUNCTION giro_normalizar(t text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT regexp_replace(lower(public.unaccent('public.unaccent'::regdictionary, t)),
                                '([0-9])[^[:alnum:]]+([[:alpha:]])', '\1\2', 'g') $$;

-- The text searched: the name and the tags, normalised, separated by spaces.
CREATE FUNCTION giro_texto_busca(nome text, tags jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT giro_normalizar(coalesce(nome, '') || ' ' || coalesce(
              (SELECT string_agg(t, ' ') FROM jsonb_array_elements_text(
                   CASE WHEN jsonb_typeof(tags) = 'array' THEN tags ELSE '[]'::jsonb END) AS t), '')) $$;

ALTER TABLE produto_vitrine
    ADD COLUMN busca TEXT GENERATED ALWAYS AS (giro_texto_busca(nome, tags)) STORED;
CREATE INDEX ix_produto_vitrine_busca ON produto_vitrine USING gin (busca gin_trgm_ops);
