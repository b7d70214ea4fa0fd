-- A shipment is credited at most once, whatever event carries it (issue 37 §1, SPEC §3.8).
-- The inbox keys on the event id, but estoque's repair "Reemitir" re-issues a dead-lettered
-- ReposicaoEnviada under a new id: when the first delivery had reached mercado before its answer
-- was lost (a timeout), the re-issue credited the same units a second time. A shipment's own
-- identity is the request it answers and the lot it ships from (one shipment = one lot, and one
-- shipment per request, SPEC §3.11); the effect inserts it here and credits only if it was new.
-- One small row per shipment, kept: a dead letter may be re-issued at any age.
CREATE TABLE remessa_creditada (
    correlation_id UUID        NOT NULL,
    lote           VARCHAR(50) NOT NULL,
    event_id       UUID        NOT NULL,
    qtd            INTEGER     NOT NULL,
    creditada_em   TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT pk_remessa_creditada PRIMARY KEY (correlation_id, lote)
);
