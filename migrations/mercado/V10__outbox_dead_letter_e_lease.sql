-- Girô (SPEC §9.1–9.2): a dead letter for events that never succeed, a lease with a fencing token
-- so no transaction stays open during a delivery, the event's trace context, and the indexes the
-- retention sweeps use. Identical in both databases.
ALTER TABLE outbox_event DROP CONSTRAINT ck_outbox_event_status;
ALTER TABLE outbox_event ADD CONSTRAINT ck_outbox_event_status CHECK (status IN ('PENDING', 'SENT', 'FAILED'));

-- Stamped by each claim; a publisher finalises only rows whose token is still the one it claimed.
ALTER TABLE outbox_event ADD COLUMN lease_token UUID;
ALTER TABLE outbox_event ADD COLUMN traceparent VARCHAR(55);

CREATE INDEX ix_outbox_event_enviado ON outbox_event (enviado_em) WHERE status = 'SENT';
CREATE INDEX ix_inbox_event_processado ON inbox_event (processado_em);
