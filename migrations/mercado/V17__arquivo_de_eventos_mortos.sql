-- Issue 30: every operator action on a dead letter is recorded (who, when, why), and a discarded
-- event is archived here instead of deleted: its row moves out of outbox_event with the action
-- that took it. A replay leaves the event in outbox_event and records the action here too, with
-- the event as it was. Identical in both databases (giro-outbox's schema.sql).
CREATE TABLE outbox_event_arquivo (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id     UUID         NOT NULL,
    tipo         VARCHAR(100) NOT NULL,
    payload      JSONB        NOT NULL,
    -- The event's status when the action was taken (FAILED, or SENT for a forced replay).
    status       VARCHAR(10)  NOT NULL,
    criado_em    TIMESTAMPTZ  NOT NULL,
    tentativas   INTEGER      NOT NULL,
    ultimo_erro  VARCHAR(500),
    acao         VARCHAR(20)  NOT NULL,
    por          VARCHAR(200) NOT NULL,
    motivo       VARCHAR(500),
    -- What the service's repair did alongside (pt-BR, for the operator).
    resultado    VARCHAR(1000),
    em           TIMESTAMPTZ  NOT NULL DEFAULT now(),
    CONSTRAINT ck_outbox_event_arquivo_acao CHECK (acao IN ('reenviar', 'descartar', 'refazer'))
);
CREATE INDEX ix_outbox_event_arquivo_evento ON outbox_event_arquivo (event_id);
CREATE INDEX ix_outbox_event_arquivo_em ON outbox_event_arquivo (em);

-- Replay-all and discard-all walk the dead letters a page at a time, oldest first.
CREATE INDEX ix_outbox_event_falho ON outbox_event (criado_em) WHERE status = 'FAILED';
