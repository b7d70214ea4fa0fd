-- Girô (issue 26): an order has a short number people can read out besides its UUID (existing
-- orders are numbered in the order the rewrite finds them), and the shop's owner may take a
-- product out of the public catalogue without deleting it (its orders still name it).
ALTER TABLE pedido ADD COLUMN numero BIGINT GENERATED ALWAYS AS IDENTITY (START WITH 1001);
ALTER TABLE pedido ADD CONSTRAINT uk_pedido_numero UNIQUE (numero);
-- When it was paid (the owner's order detail); orders paid before this migration have none.
ALTER TABLE pedido ADD COLUMN pago_em TIMESTAMPTZ;
-- The owner's order list (newest first, filtered by period) uses ix_pedido_criado_em, made by V20
-- for the sales chart.

ALTER TABLE produto_vitrine ADD COLUMN listado BOOLEAN NOT NULL DEFAULT true;
