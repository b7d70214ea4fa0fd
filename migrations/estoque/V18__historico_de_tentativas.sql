-- Issue 26: the event console shows each delivery attempt of an event (its instant, outcome and
-- error), not only the last error. The publisher writes a row in the statement that settles the
-- attempt (giro-outbox's store::mark_failed, store::MARK_SENT): every failure, and the success
-- only of an event that failed before. At most store::TENTATIVAS_GUARDADAS (20) rows per event:
-- the settle deletes the older ones. No foreign key (a benchmark and tools TRUNCATE outbox_event
-- alone): retention and the archiving of a dead letter delete an event's rows with it.
-- Identical in both databases (giro-outbox's schema.sql).
CREATE TABLE outbox_tentativa (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id    UUID        NOT NULL,
    -- The event's attempt count at the claim that made it (an operator's replay starts it over).
    numero      INTEGER     NOT NULL,
    em          TIMESTAMPTZ NOT NULL,
    resultado   VARCHAR(20) NOT NULL,
    erro        VARCHAR(500),
    -- The peer's HTTP status, when it answered one.
    status_http SMALLINT,
    CONSTRAINT ck_outbox_tentativa_resultado CHECK (resultado IN ('falha_transitoria', 'falha_permanente', 'enviado'))
);
-- An event's attempts, newest first (the console, the settle's bound, the deletes with the event).
CREATE INDEX ix_outbox_tentativa_evento ON outbox_tentativa (event_id, id);
