//! The re-classification job (the original's `ReclassificacaoTags`, SPEC §3.14): products left
//! without tags — because the tag-worker was down at their lot intake — are classified later.
//!
//! Every `tags.intervalo-reclassificacao` (5 min; also the initial delay), when
//! `tags.reclassificacao-habilitada`: the first `tags.lote-reclassificacao` (20) untagged products
//! by SKU; for each, the worker is asked with no transaction open; a `None` **stops the round**
//! (the worker is still down: no point paying a timeout per product); otherwise, in the product's
//! own transaction, the row is locked and, if still untagged (a lot intake may have classified it
//! meanwhile), the classification and its `ProdutoClassificado` are written.
//!
//! The loop never dies: a failed round is logged and the next one runs on schedule; it stops when
//! the service shuts down.

use std::sync::Arc;

use super::classificacao::{self, ClienteTags};
use super::{agora, produto};
use crate::db::Db;
use crate::server::Contexto;

/// Spawns the job on `ctx.tasks` when enabled; it stops on `ctx.shutdown`.
pub fn iniciar(ctx: &Contexto, cliente: Arc<ClienteTags>) {
    let cfg = &ctx.config.tags;
    if !cfg.reclassificacao_habilitada {
        tracing::info!("re-classification job disabled");
        return;
    }
    let (db, intervalo, limite, shutdown) =
        (ctx.db.clone(), cfg.intervalo_reclassificacao, cfg.lote_reclassificacao, ctx.shutdown.clone());
    ctx.tasks.spawn(async move {
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => break,
                _ = tokio::time::sleep(intervalo) => {}
            }
            tokio::select! {
                _ = shutdown.cancelled() => break,
                r = rodada(&db, &cliente, limite) => match r {
                    Ok(0) => tracing::debug!("re-classification round: nothing classified"),
                    Ok(n) => tracing::info!(classificados = n, "re-classification round"),
                    Err(e) => tracing::warn!(error = %format!("{e:#}"), "re-classification round failed; trying again next round"),
                },
            }
        }
        tracing::debug!("re-classification job stopped");
    });
}

/// One round: classifies up to `limite` untagged products, stopping at the first the worker cannot
/// classify. Returns how many were classified.
pub async fn rodada(db: &Db, cliente: &ClienteTags, limite: i64) -> anyhow::Result<usize> {
    let pendentes = {
        let client = db.client().await?;
        produto::sem_tags(&client, limite).await?
    };
    let mut classificados = 0;
    for p in pendentes {
        let Some(c) = cliente.classificar(&p.sku, &p.descricao).await else {
            tracing::info!(sku = %p.sku, "tag-worker gave no classification; round stopped");
            break;
        };
        let mut client = db.client().await?;
        let tx = db.begin(&mut client).await?;
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
