-- The tables giro-outbox reads and writes, as Girô's migrations leave them (mercado V5/V6, V7,
-- V10; estoque V4/V5, V7, V10), in one script for a service that adopts the crate: run it in
-- the service's own migrations. `outbox_event` is the writer's and the relay's; `inbox_event` the
-- receiver's.
CREATE TABLE IF NOT EXISTS outbox_event (
    id                   UUID PRIMARY KEY,
    tipo                 VARCHAR(100) NOT NULL,
    payload              JSONB        NOT NULL,
    status               VARCHAR(10)  NOT NULL DEFAULT 'PENDING',
    criado_em            TIMESTAMPTZ  NOT NULL,
    tentativas           INTEGER      NOT NULL DEFAULT 0,
    proxima_tentativa_em TIMESTAMPTZ  NOT NULL,
    ultimo_erro          VARCHAR(500),
    enviado_em           TIMESTAMPTZ,
    -- Stamped by each claim; a publisher settles only rows whose token is still the one it claimed.
    lease_token          UUID,
    traceparent          VARCHAR(55),
    CONSTRAINT ck_outbox_event_status CHECK (status IN ('PENDING', 'SENT', 'FAILED'))
);
CREATE INDEX IF NOT EXISTS ix_outbox_event_pendente ON outbox_event (proxima_tentativa_em) WHERE status = 'PENDING';
CREATE INDEX IF NOT EXISTS ix_outbox_event_enviado ON outbox_event (enviado_em) WHERE status = 'SENT';

-- One row per event already applied, committed with its effect.
CREATE TABLE IF NOT EXISTS inbox_event (
    event_id      UUID PRIMARY KEY,
    processado_em TIMESTAMPTZ NOT NULL
);
CREATE INDEX IF NOT EXISTS ix_inbox_event_processado ON inbox_event (processado_em);

-- Every operator action on a dead letter (who, when, why); a discarded event moves here
-- (mercado V17, estoque V16).
CREATE TABLE IF NOT EXISTS outbox_event_arquivo (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id     UUID         NOT NULL,
    tipo         VARCHAR(100) NOT NULL,
    payload      JSONB        NOT NULL,
    status       VARCHAR(10)  NOT NULL,
    criado_em    TIMESTAMPTZ  NOT NULL,
    tentativas   INTEGER      NOT NULL,
    ultimo_erro  VARCHAR(500),
    acao         VARCHAR(20)  NOT NULL,
    por          VARCHAR(200) NOT NULL,
    motivo       VARCHAR(500),
    resultado    VARCHAR(1000),
    em           TIMESTAMPTZ  NOT NULL DEFAULT now(),
    CONSTRAINT ck_outbox_event_arquivo_acao CHECK (acao IN ('reenviar', 'descartar', 'refazer'))
);
CREATE INDEX IF NOT EXISTS ix_outbox_event_arquivo_evento ON outbox_event_arquivo (event_id);
CREATE INDEX IF NOT EXISTS ix_outbox_event_arquivo_em ON outbox_event_arquivo (em);
CREATE INDEX IF NOT EXISTS ix_outbox_event_falho ON outbox_event (criado_em) WHERE status = 'FAILED';
-- The fresh share of a claim: events due for the first time, newest first (mercado V19, estoque V17).
CREATE INDEX IF NOT EXISTS ix_outbox_event_novo ON outbox_event (criado_em) WHERE status = 'PENDING' AND tentativas = 0;

-- Each delivery attempt of an event, at most 20 per event (mercado V23, estoque V18): every
-- failure, and the success of an event that failed before. Deleted with the event.
CREATE TABLE IF NOT EXISTS outbox_tentativa (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id    UUID        NOT NULL,
    numero      INTEGER     NOT NULL,
    em          TIMESTAMPTZ NOT NULL,
    resultado   VARCHAR(20) NOT NULL,
    erro        VARCHAR(500),
    status_http SMALLINT,
    CONSTRAINT ck_outbox_tentativa_resultado CHECK (resultado IN ('falha_transitoria', 'falha_permanente', 'enviado'))
);
CREATE INDEX IF NOT EXISTS ix_outbox_tentativa_evento ON outbox_tentativa (event_id, id);
