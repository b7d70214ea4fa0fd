-- Issue 26: the operator home's charts aggregate a window of the last hours (at most 48) of
-- orders and of restock requests; without these the window is a scan of every row ever written
-- (500 000 orders over a year, the 24-hour sales chart: 54-59 ms a refresh by a sequential scan,
-- 1.2-3.6 ms by this index; EXPLAIN ANALYZE on a 2-core machine). IF NOT EXISTS:
-- the orders page filters by period on the same column and may bring the same index.
CREATE INDEX IF NOT EXISTS ix_pedido_criado_em ON pedido (criado_em);
CREATE INDEX IF NOT EXISTS ix_solicitacao_reposicao_criado_em ON solicitacao_reposicao (criado_em);
