-- Retries with backoff: attempts, next attempt, last error, delivery instant.
ALTER TABLE outbox_event ADD COLUMN tentativas INTEGER NOT NULL DEFAULT 0;
ALTER TABLE outbox_event ADD COLUMN proxima_tentativa_em TIMESTAMPTZ;
UPDATE outbox_event SET proxima_tentativa_em = criado_em;
ALTER TABLE outbox_event ALTER COLUMN proxima_tentativa_em SET NOT NULL;
ALTER TABLE outbox_event ADD COLUMN ultimo_erro VARCHAR(500);
ALTER TABLE outbox_event ADD COLUMN enviado_em TIMESTAMPTZ;

DROP INDEX ix_outbox_event_pendente;
CREATE INDEX ix_outbox_event_pendente ON outbox_event (proxima_tentativa_em) WHERE status = 'PENDING';
