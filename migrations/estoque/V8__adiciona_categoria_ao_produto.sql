ALTER TABLE produto_estoque ADD COLUMN categoria VARCHAR(30);
