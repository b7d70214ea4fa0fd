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

-- The throttling counters (failed logins per address and per user name, checkouts per address),
-- shared by the replicas so N of them do not give an attacker N times the attempts. One row per
-- count; `fim` ends its window. Rows past `fim` are purged in batches with the sessions.
CREATE TABLE contador_limite (
    chave TEXT        PRIMARY KEY,
    n     INTEGER     NOT NULL,
    fim   TIMESTAMPTZ NOT NULL
);

CREATE INDEX contador_limite_fim ON contador_limite (fim);
