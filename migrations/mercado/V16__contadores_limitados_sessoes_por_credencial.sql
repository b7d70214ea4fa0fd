-- Girô (issue 25): bounded throttling counters, sessions bound to their credentials, and
-- Idempotency-Keys scoped to the client.

-- The throttling counters are bounded (http.max-contadores): a new key is inserted only while
-- the table holds fewer rows than the cap. Counting the table on each new key would scan up to
-- the cap, so the number of rows is kept here by triggers, in 16 slices (a key's slice is
-- hashtext(chave) & 15) so concurrent inserts of different keys seldom wait for one another.
CREATE TABLE contador_limite_total (
    fatia SMALLINT PRIMARY KEY CHECK (fatia BETWEEN 0 AND 15),
    n     BIGINT   NOT NULL
);
INSERT INTO contador_limite_total (fatia, n)
SELECT f, (SELECT count(*) FROM contador_limite WHERE hashtext(chave) & 15 = f)
  FROM generate_series(0, 15) f;

CREATE FUNCTION contador_limite_inserido() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE contador_limite_total SET n = n + 1 WHERE fatia = hashtext(NEW.chave) & 15;
    RETURN NULL;
END $$;

-- Slices are updated in ascending order, so two purges running at once (every replica purges)
-- take their locks in the same order and never deadlock.
CREATE FUNCTION contador_limite_apagados() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    a RECORD;
BEGIN
    FOR a IN SELECT hashtext(chave) & 15 AS fatia, count(*) AS k FROM apagados GROUP BY 1 ORDER BY 1 LOOP
        UPDATE contador_limite_total SET n = n - a.k WHERE fatia = a.fatia;
    END LOOP;
    RETURN NULL;
END $$;

CREATE TRIGGER contador_limite_inserido AFTER INSERT ON contador_limite
    FOR EACH ROW EXECUTE FUNCTION contador_limite_inserido();
-- A purge deletes a batch at once: one update per slice, not one per row.
CREATE TRIGGER contador_limite_apagados AFTER DELETE ON contador_limite
    REFERENCING OLD TABLE AS apagados
    FOR EACH STATEMENT EXECUTE FUNCTION contador_limite_apagados();
-- TRUNCATE empties the table without a DELETE: the total follows.
CREATE FUNCTION contador_limite_esvaziado() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE contador_limite_total SET n = 0;
    RETURN NULL;
END $$;
CREATE TRIGGER contador_limite_esvaziado AFTER TRUNCATE ON contador_limite
    FOR EACH STATEMENT EXECUTE FUNCTION contador_limite_esvaziado();

-- Operator sessions carry a fingerprint of the credentials they were opened with (an HMAC keyed
-- by the service's secrets, giro-http's auth::sessao), so a service running with other
-- credentials deletes them: a password changed and then reverted does not revive a stolen
-- cookie. Rows from before this migration have none and are deleted the same way.
ALTER TABLE sessao_operador ADD COLUMN credencial BYTEA;

-- An Idempotency-Key is stored prefixed with the client's neighbourhood (`<address>|<key>`), so
-- another client sending the same key gets an order of its own: 255 characters of key plus the
-- prefix no longer fit the old VARCHAR(255) (a change of type without a rewrite).
ALTER TABLE checkout_idempotencia ALTER COLUMN chave TYPE TEXT;
