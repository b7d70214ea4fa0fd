-- Operator sessions in the service's own database (issue 16), so every replica behind the load
-- balancer serves every request and a restart logs nobody out. The key is a SHA-256 of the
-- session id (bound to the operator's credentials), never the id itself: a copy of this table
-- opens no session. Expired rows are purged in small batches by every replica (SKIP LOCKED).
CREATE TABLE sessao_operador (
    id_hash   BYTEA       PRIMARY KEY,
    usuario   TEXT        NOT NULL,
    criada_em TIMESTAMPTZ NOT NULL DEFAULT now(),
    vista_em  TIMESTAMPTZ NOT NULL DEFAULT now(),
    expira_em TIMESTAMPTZ NOT NULL
);

CREATE INDEX sessao_operador_expira_em ON sessao_operador (expira_em);
