-- classificado_em = ocorridoEm of the applied ProdutoClassificado; an older one never overwrites.
ALTER TABLE produto_vitrine ADD COLUMN categoria VARCHAR(30);
ALTER TABLE produto_vitrine ADD COLUMN classificado_em TIMESTAMPTZ;
