-- Girô (issue 13): bounds on anonymous checkout.
-- Who holds an unpaid order (the client address as the service saw it), so the units one
-- address keeps reserved can be bounded; NULL for orders written before this migration.
ALTER TABLE pedido ADD COLUMN cliente INET;
CREATE INDEX ix_pedido_cliente_aguardando ON pedido (cliente)
    WHERE status = 'AGUARDANDO_PAGAMENTO' AND cliente IS NOT NULL;

-- Idempotency-Key of POST /pedidos: the same key with the same items answers the same order
-- (no second reservation); the same key with other items is refused. Kept for a day.
CREATE TABLE checkout_idempotencia (
    chave VARCHAR(255) PRIMARY KEY,
    itens TEXT NOT NULL,
    pedido_id UUID NOT NULL REFERENCES pedido (id),
    criado_em TIMESTAMPTZ NOT NULL
);
CREATE INDEX ix_checkout_idempotencia_criado ON checkout_idempotencia (criado_em);
