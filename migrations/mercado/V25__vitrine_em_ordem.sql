-- The storefront's order (available first, then name and SKU), so a page of `GET /produtos`
-- and a search of short words (which the trigram index cannot serve) read the first rows in
-- order and stop, instead of sorting the whole catalogue (issue 37 §3). No column a checkout
-- updates is in it (a stock-out changes status, seldom), so the shelf's updates stay HOT.
CREATE INDEX ix_produto_vitrine_ordem ON produto_vitrine ((CASE WHEN status = 'DISPONIVEL' THEN 0 ELSE 1 END), nome, sku)
    WHERE listado;
