-- Issue 39 §4: the operator describes a product and gives it an image. The image lives in the
-- product's row (TOASTed out of line, so the shelf's updates neither copy nor rewrite it); its
-- ETag is md5 of the bytes, taken by the UPDATE that stores them.
ALTER TABLE produto_vitrine ADD COLUMN descricao VARCHAR(2000);
ALTER TABLE produto_vitrine ADD COLUMN imagem BYTEA;
ALTER TABLE produto_vitrine ADD COLUMN imagem_tipo VARCHAR(10);
ALTER TABLE produto_vitrine ADD COLUMN imagem_etag VARCHAR(32);
ALTER TABLE produto_vitrine ADD CONSTRAINT ck_produto_vitrine_imagem CHECK (
    (imagem IS NULL AND imagem_tipo IS NULL AND imagem_etag IS NULL)
    OR (imagem IS NOT NULL AND imagem_tipo IN ('image/jpeg', 'image/png', 'image/webp') AND imagem_etag IS NOT NULL));
