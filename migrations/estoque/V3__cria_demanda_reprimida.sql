-- A restock request that found no shippable lot; served when a lot of the SKU arrives.
CREATE TABLE demanda_reprimida (
    id                   BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    sku                  VARCHAR(14) NOT NULL REFERENCES produto_estoque (sku),
    qtd_solicitada       INTEGER     NOT NULL,
    solicitacao_original UUID        NOT NULL,
    atendida             BOOLEAN     NOT NULL DEFAULT FALSE,
    registrado_em        TIMESTAMPTZ NOT NULL,
    CONSTRAINT uk_demanda_reprimida_solicitacao UNIQUE (solicitacao_original),
    CONSTRAINT ck_demanda_reprimida_qtd CHECK (qtd_solicitada > 0)
);

CREATE INDEX ix_demanda_reprimida_aberta ON demanda_reprimida (sku, registrado_em) WHERE NOT atendida;
