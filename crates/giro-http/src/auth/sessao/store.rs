//! The SQL of table `sessao_operador`, one function per statement. Keys are the HMACs
//! [`Seguranca`](crate::auth::Seguranca) derives; times are the database's (`now()`), so
//! replicas with skewed clocks agree on expiry.

use std::time::Duration;

use giro_infra::db::Sql;

/// The user of the live session `chave`, and whether its `vista_em` is older than `passo_s`
/// seconds (time to refresh it).
pub async fn buscar(
    c: &impl Sql,
    chave: &[u8],
    passo_s: f64,
) -> Result<Option<(String, bool)>, tokio_postgres::Error> {
    let sql = "SELECT usuario, vista_em < now() - make_interval(secs => $2) \
               FROM sessao_operador WHERE id_hash = $1 AND expira_em > now()";
    Ok(c.query_opt(sql, &[&chave, &passo_s]).await?.map(|r| (r.get(0), r.get(1))))
}

pub async fn marcar_vista(c: &impl Sql, chave: &[u8]) -> Result<(), tokio_postgres::Error> {
    c.execute("UPDATE sessao_operador SET vista_em = now() WHERE id_hash = $1", &[&chave]).await?;
    Ok(())
}

/// A new session of `usuario`, valid for `ttl` from now, opened with `credencial`.
pub async fn inserir(
    c: &impl Sql,
    chave: &[u8],
    usuario: &str,
    ttl: Duration,
    credencial: &[u8],
) -> Result<(), tokio_postgres::Error> {
    let sql = "INSERT INTO sessao_operador (id_hash, usuario, expira_em, credencial) \
               VALUES ($1, $2, now() + make_interval(secs => $3), $4)";
    c.execute(sql, &[&chave, &usuario, &ttl.as_secs_f64(), &credencial]).await?;
    Ok(())
}

pub async fn apagar(c: &impl Sql, chave: &[u8]) -> Result<(), tokio_postgres::Error> {
    c.execute("DELETE FROM sessao_operador WHERE id_hash = $1", &[&chave]).await?;
    Ok(())
}

/// Deletes at most `lote` expired sessions, skipping rows another purge holds; returns how many.
pub async fn apagar_expiradas(c: &impl Sql, lote: i64) -> Result<u64, tokio_postgres::Error> {
    let sql = "DELETE FROM sessao_operador WHERE id_hash IN ( \
               SELECT id_hash FROM sessao_operador WHERE expira_em <= now() LIMIT $1 FOR UPDATE SKIP LOCKED)";
    c.execute(sql, &[&lote]).await
}

/// Deletes at most `lote` sessions opened with other credentials than `credencial` (or before
/// sessions had one), skipping rows another purge holds; returns how many.
pub async fn apagar_de_outras_credenciais(
    c: &impl Sql,
    credencial: &[u8],
    lote: i64,
) -> Result<u64, tokio_postgres::Error> {
    let sql = "DELETE FROM sessao_operador WHERE id_hash IN ( \
               SELECT id_hash FROM sessao_operador WHERE credencial IS DISTINCT FROM $1 \
                LIMIT $2 FOR UPDATE SKIP LOCKED)";
    c.execute(sql, &[&credencial, &lote]).await
}
