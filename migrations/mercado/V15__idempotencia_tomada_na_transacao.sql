-- Girô: the checkout claims its Idempotency-Key as the first statement of its own transaction,
-- before the order row exists; the key's reference to the order is checked at commit.
ALTER TABLE checkout_idempotencia
    ALTER CONSTRAINT checkout_idempotencia_pedido_id_fkey DEFERRABLE INITIALLY DEFERRED;
