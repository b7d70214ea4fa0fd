-- When the ReposicaoEnviada was delivered to the market, kept beside the shipment so the dashboard
-- still shows it after retention has pruned the SENT outbox row (SPEC §9.1). A trigger fills it, so
-- the outbox code stays free of any role.
ALTER TABLE reposicao_expedida ADD COLUMN entregue_em TIMESTAMPTZ;

UPDATE reposicao_expedida r
   SET entregue_em = o.enviado_em
  FROM outbox_event o
 WHERE o.id = r.event_id AND o.status = 'SENT';

CREATE FUNCTION registra_entrega_reposicao() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE reposicao_expedida SET entregue_em = NEW.enviado_em
     WHERE event_id = NEW.id AND entregue_em IS NULL;
    RETURN NULL;
END;
$$;

CREATE TRIGGER tg_outbox_event_entrega_reposicao
    AFTER UPDATE OF status ON outbox_event
    FOR EACH ROW
    WHEN (NEW.status = 'SENT' AND OLD.status IS DISTINCT FROM 'SENT' AND NEW.tipo = 'ReposicaoEnviada')
    EXECUTE FUNCTION registra_entrega_reposicao();
