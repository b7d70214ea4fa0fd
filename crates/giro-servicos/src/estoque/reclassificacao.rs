//! The re-classification job (the original's `ReclassificacaoTags`, SPEC §3.14): products left
//! without tags — because the tag-worker was down at their lot intake — are classified later.
//!
//! Every `tags.intervalo-reclassificacao` (5 min; also the initial delay), when
//! `tags.reclassificacao-habilitada`: the first `tags.lote-reclassificacao` (20) untagged products
//! by SKU; for each, the worker is asked with no transaction open; then, in the product's own
//! transaction, the row is locked and, if still untagged (a lot intake may have classified it
//! meanwhile), the classification and its `ProdutoClassificado` are written.
//!
//! A product the worker **cannot classify** (a 4xx for its description, or an answer outside the
//! contract) is skipped and left out of the selection for a while ([`pulados`]: one interval,
//! doubling up to a day). The round **stops only when the worker itself is down** (no answer,
//! 5xx): no point paying a timeout per product.
//!
//! **Several replicas**: one round at a time across all of them, through a transaction-scoped
//! advisory lock (`pg_try_advisory_xact_lock`) held by a guard transaction that the round keeps
//! open on one pooled connection; a replica that does not get it skips its round.
//! Transaction-scoped, not a session lock, so it is right behind a transaction pooler (the guard
//! pins one server connection, where a session lock could be released on another) and never
//! stays behind on a pooled connection: the transaction's end, or its connection's loss, releases
//! it. The guard is exempt from `idle_in_transaction_session_timeout` (it idles while the worker
//! is asked). The per-product lock and the "still untagged" check would already prevent a double
//! classification; the advisory lock saves the duplicate worker calls.

use std::sync::Arc;
use std::time::Duration;

use super::classificacao::{self, ClienteTags, FalhaTags};
use super::Tx;
use super::{agora, produto};
use giro_infra::db::Db;
use giro_infra::supervisor::{Pausas, Vivo};

/// The advisory lock key of the job (any constant shared by every replica).
const LOCK_KEY: i64 = 0x6769_726f_7461_6773; // "girotags"

/// The job's loop: a round every `intervalo` until `shutdown`; run under the service's
/// supervisor by the role's wiring (`estoque::build`), which reports `vivo`.
pub async fn job(
    db: Db,
    cliente: Arc<ClienteTags>,
    intervalo: Duration,
    limite: i64,
    shutdown: tokio_util::sync::CancellationToken,
    vivo: Vivo,
) {
    let mut pulados = pulados(intervalo);
    let mut falhas = vivo.falhas("re-classification round failed; trying again next round");
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => break,
            _ = tokio::time::sleep(intervalo) => {}
        }
        tokio::select! {
            _ = shutdown.cancelled() => break,
            r = rodada_com(&db, &cliente, limite, &mut pulados) => {
                match falhas.notar(r.map_err(|e| format!("{e:#}")), intervalo) {
                    Some(0) => tracing::debug!("re-classification round: nothing classified"),
                    Some(n) => tracing::info!(classificados = n, "re-classification round"),
                    None => {}
                }
            }
        }
        vivo.ok();
    }
    tracing::debug!("re-classification job stopped");
}

/// Products (SKUs) the worker could not classify, left out until their retry instant:
/// `primeira` (at least 1 s) doubling to a day, remembered a day after the pause ends.
pub fn pulados(primeira: Duration) -> Pausas<String> {
    const DIA: Duration = Duration::from_secs(86_400);
    Pausas::new(primeira.max(Duration::from_secs(1)), DIA, DIA)
}

/// One round without memory of earlier rounds: classifies up to `limite` untagged products,
/// skipping those the worker cannot classify, stopping if the worker is down. Returns how many
/// were classified.
pub async fn rodada(db: &Db, cliente: &ClienteTags, limite: i64) -> anyhow::Result<usize> {
    rodada_com(db, cliente, limite, &mut pulados(Duration::from_secs(300))).await
}

/// One round with `pulados` (see the module doc); 0 when another replica holds the round.
pub async fn rodada_com(
    db: &Db,
    cliente: &ClienteTags,
    limite: i64,
    pulados: &mut Pausas<String>,
) -> anyhow::Result<usize> {
    let mut conexao = db.client().await?;
    let guarda = Tx::begin(db, &mut conexao).await?;
    guarda.batch_execute("SET LOCAL idle_in_transaction_session_timeout = 0").await?;
    let locked: bool = guarda.query_one("SELECT pg_try_advisory_xact_lock($1)", &[&LOCK_KEY]).await?.get(0);
    if !locked {
        tracing::debug!("re-classification round held by another replica; skipped");
        guarda.rollback().await?;
        return Ok(0);
    }
    let r = classificar(db, cliente, limite, pulados).await;
    // Releases the lock; had the connection failed meanwhile, the lock went with it.
    if guarda.rollback().await.is_err() {
        conexao.descartar();
    }
    r
}

async fn classificar(
    db: &Db,
    cliente: &ClienteTags,
    limite: i64,
    pulados: &mut Pausas<String>,
) -> anyhow::Result<usize> {
    let pendentes = {
        let client = db.client().await?;
        produto::sem_tags_exceto(&client, limite, &pulados.ativos()).await?
    };
    let mut classificados = 0;
    for p in pendentes {
        let c = match cliente.classificar_detalhado(&p.sku, &p.descricao).await {
            Ok(c) => c,
            Err(FalhaTags::Indisponivel(_)) => {
                tracing::info!(sku = %p.sku, "tag-worker is down; round stopped");
                break;
            }
            Err(FalhaTags::Inclassificavel(motivo)) => {
                pulados.falhou(p.sku.clone());
                tracing::warn!(sku = %p.sku, motivo = %motivo, "the tag-worker cannot classify this product; skipped, tried again later");
                continue;
            }
        };
        let mut client = db.client().await?;
        let tx = Tx::begin(db, &mut client).await?;
        let Some(mut bloqueado) = produto::bloquear(&tx, &p.sku).await? else {
            continue;
        };
        if bloqueado.classificado() {
            tx.rollback().await?;
            continue;
        }
        classificacao::aplicar(&tx, &mut bloqueado, &c, agora()).await?;
        tx.commit().await?;
        classificados += 1;
    }
    Ok(classificados)
}
