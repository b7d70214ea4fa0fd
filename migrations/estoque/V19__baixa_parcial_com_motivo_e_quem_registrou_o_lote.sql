-- Girô (issue 39): a write-off may take part of a lot, with a reason (a lot may be written off
-- several times, each row the units and why); a lot says who entered it (NULL: before this
-- migration, or not entered by an operator).
ALTER TABLE baixa_lote DROP CONSTRAINT uk_baixa_lote_lote;
CREATE INDEX ix_baixa_lote_lote ON baixa_lote (lote_id);
-- Every write-off before this one was of an expired lot.
ALTER TABLE baixa_lote ADD COLUMN motivo VARCHAR(10) NOT NULL DEFAULT 'vencido';
ALTER TABLE baixa_lote ALTER COLUMN motivo DROP DEFAULT;
ALTER TABLE baixa_lote ADD CONSTRAINT ck_baixa_lote_motivo CHECK (motivo IN ('vencido', 'avaria', 'furto', 'ajuste'));
ALTER TABLE lote ADD COLUMN operador VARCHAR(100);
