-- A restock request sent to the warehouse; its event id comes back as the answer's correlationId.
CREATE TABLE solicitacao_reposicao (
    id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id       UUID        NOT NULL,
    sku            VARCHAR(14) NOT NULL REFERENCES produto_vitrine (sku),
    qtd_solicitada INTEGER     NOT NULL,
    status         VARCHAR(20) NOT NULL,
    criado_em      TIMESTAMPTZ NOT NULL,
    CONSTRAINT uk_solicitacao_reposicao_event_id UNIQUE (event_id),
    CONSTRAINT ck_solicitacao_reposicao_qtd CHECK (qtd_solicitada > 0),
    CONSTRAINT ck_solicitacao_reposicao_status CHECK (status IN ('PENDENTE', 'AGUARDANDO_LOTE', 'ATENDIDA', 'CANCELADA'))
);

-- At most one open request per SKU, enforced by the database.
CREATE UNIQUE INDEX uk_solicitacao_reposicao_ativa_por_sku
    ON solicitacao_reposicao (sku) WHERE status IN ('PENDENTE', 'AGUARDANDO_LOTE');
