-- Transactional outbox: an event row commits with the business change that produced it.
CREATE TABLE outbox_event (
    id        UUID PRIMARY KEY,
    tipo      VARCHAR(100) NOT NULL,
    payload   JSONB        NOT NULL,
    status    VARCHAR(10)  NOT NULL DEFAULT 'PENDING',
    criado_em TIMESTAMPTZ  NOT NULL,
    CONSTRAINT ck_outbox_event_status CHECK (status IN ('PENDING', 'SENT'))
);

CREATE INDEX ix_outbox_event_pendente ON outbox_event (criado_em) WHERE status = 'PENDING';
