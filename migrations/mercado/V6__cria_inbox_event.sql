-- Idempotent inbox: one row per event already applied, committed with its effect.
CREATE TABLE inbox_event (
    event_id      UUID PRIMARY KEY,
    processado_em TIMESTAMPTZ NOT NULL
);
