-- Girô (issue 30): an Idempotency-Key costs as little as a key can on the checkout's hot path.
-- The key row is written only by the checkout transaction that writes its order, and orders are
-- never deleted, so the foreign key to `pedido` guarded nothing a commit does not already
-- guarantee; its deferred check ran a locking lookup of the new order at every commit.
ALTER TABLE checkout_idempotencia DROP CONSTRAINT checkout_idempotencia_pedido_id_fkey;
-- The purge's only access path by age: keys are written in time order, so a BRIN index finds the
-- old ones at a fraction of a B-tree's upkeep per checkout.
DROP INDEX ix_checkout_idempotencia_criado;
CREATE INDEX ix_checkout_idempotencia_criado ON checkout_idempotencia USING brin (criado_em);
