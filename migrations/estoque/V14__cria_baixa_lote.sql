-- The write-off of an expired lot (issue 26): the units it still held, who wrote it off and when.
-- A lot is written off at most once (its units go to zero and it never ships again); the row is
-- the SKU's history of the loss and what keeps the audit's unit conservation whole (received =
-- in lots + shipped + written off).
CREATE TABLE baixa_lote (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    lote_id    BIGINT       NOT NULL REFERENCES lote (id),
    sku        VARCHAR(14)  NOT NULL REFERENCES produto_estoque (sku),
    qtd        INTEGER      NOT NULL,
    operador   VARCHAR(100) NOT NULL,
    baixado_em TIMESTAMPTZ  NOT NULL,
    CONSTRAINT uk_baixa_lote_lote UNIQUE (lote_id),
    CONSTRAINT ck_baixa_lote_qtd CHECK (qtd > 0)
);

CREATE INDEX ix_baixa_lote_sku ON baixa_lote (sku, baixado_em);

-- The inventory's per-SKU history reads a SKU's shipments (V9 indexed them by time and by lot only).
CREATE INDEX ix_reposicao_expedida_sku ON reposicao_expedida (sku, expedido_em);
