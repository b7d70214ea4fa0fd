-- Girô (issue 40): the storefront's search ranks the shortest stored text holding every word
-- first (crates/giro-servicos/src/mercado/produto.rs, "Rank"). This index holds the listed
-- products in that order, so a common word is answered by reading it from the start until a page
-- of matches is found, instead of ranking every match; a rare one still goes through the trigram
-- index (V21). Like V25's, it holds no column a checkout updates but the status, which changes
-- seldom, so the shelf's updates stay HOT.
CREATE INDEX ix_produto_vitrine_proximidade
    ON produto_vitrine (length(busca), (CASE WHEN status = 'DISPONIVEL' THEN 0 ELSE 1 END), nome, sku)
    WHERE listado;
