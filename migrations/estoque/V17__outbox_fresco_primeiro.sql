-- Issue 29, fresh first: the claim takes a share of its rows among the events due for the first
-- time and created within the freshness window (giro-outbox's store::FRESCOR), newest first,
-- before the backlog. This index serves that share: first attempts only, so a backlog of retries
-- never sits in it, and a row leaves it at its first claim. Identical in both databases
-- (giro-outbox's schema.sql).
CREATE INDEX ix_outbox_event_novo ON outbox_event (criado_em) WHERE status = 'PENDING' AND tentativas = 0;
