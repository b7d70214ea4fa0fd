//! `giro audit` on a large shop (`giro bench audit`): scratch databases filled, in SQL, with what
//! `--events` restocks leave behind when everything went right — per side N events `SENT` in the
//! outbox and N in the peer's inbox, N requests served, N shipments delivered, lots and shelves
//! that conserve the units, over `--products` products — then the real `giro audit --json` run on
//! them as an operator runs it, timed. It must agree (exit 0): a generator that left a
//! disagreement would time a different path.

use std::time::Instant;

use serde_json::json;

use crate::scratch::{self, Scratch};

pub struct AuditArgs {
    pub admin_url: String,
    pub eventos: i32,
    pub produtos: i32,
}

pub async fn run(args: AuditArgs) -> anyhow::Result<serde_json::Value> {
    anyhow::ensure!(args.produtos > 0 && args.eventos > 0, "--events and --products must be positive");
    scratch::with_pair(&args.admin_url, async |mercado, estoque| medir(&args, mercado, estoque).await).await
}

/// Request `g` (1..=N): its event id, its answer's, and its product (requests spread evenly).
const GERAR: &str = "CREATE TEMP TABLE g AS SELECT g, md5('pedido' || g)::uuid AS pedido, md5('resposta' || g)::uuid AS resposta, \
                     (7890000000001 + (g % {P}))::text AS sku FROM generate_series(1, {N}) g";

async fn medir(args: &AuditArgs, mercado: &Scratch, estoque: &Scratch) -> anyhow::Result<serde_json::Value> {
    let (n, p) = (args.eventos, args.produtos);
    let t0 = Instant::now();
    let gerar = GERAR.replace("{P}", &p.to_string()).replace("{N}", &n.to_string());
    let m = mercado.conectar().await?;
    m.batch_execute(&format!(
        "{gerar}; \
         INSERT INTO produto_vitrine (sku, nome, preco, estoque_prateleira, estoque_minimo, estoque_ideal, status) \
           SELECT (7890000000001 + k)::text, 'Produto ' || k, 9.99, 0, 1, 1000, 'DISPONIVEL' FROM generate_series(0, {p} - 1) k; \
         UPDATE produto_vitrine v SET estoque_prateleira = x.n FROM (SELECT sku, count(*)::int AS n FROM g GROUP BY sku) x WHERE x.sku = v.sku; \
         INSERT INTO solicitacao_reposicao (event_id, sku, qtd_solicitada, status, criado_em) SELECT pedido, sku, 1, 'ATENDIDA', now() FROM g; \
         INSERT INTO outbox_event (id, tipo, payload, status, criado_em, tentativas, proxima_tentativa_em, enviado_em) \
           SELECT pedido, 'ReposicaoSolicitada', jsonb_build_object('eventId', pedido, 'sku', sku, 'qtdFaltante', 1, 'ocorridoEm', now()), \
                  'SENT', now(), 1, now(), now() FROM g; \
         INSERT INTO inbox_event (event_id, processado_em) SELECT resposta, now() FROM g; \
         ANALYZE"
    ))
    .await?;
    let e = estoque.conectar().await?;
    e.batch_execute(&format!(
        "{gerar}; \
         INSERT INTO produto_estoque (sku, descricao, ncm, saldo_disponivel) \
           SELECT (7890000000001 + k)::text, 'Produto ' || k, '22030000', 1000000 FROM generate_series(0, {p} - 1) k; \
         INSERT INTO lote (sku, codigo_lote, quantidade, validade, recebido_em, quantidade_disponivel) \
           SELECT sku, 'L-AUDIT', 1000000, NULL, now(), 1000000 FROM produto_estoque; \
         UPDATE lote l SET quantidade_disponivel = 1000000 - x.n FROM (SELECT sku, count(*)::int AS n FROM g GROUP BY sku) x WHERE x.sku = l.sku; \
         UPDATE produto_estoque p SET saldo_disponivel = l.quantidade_disponivel FROM lote l WHERE l.sku = p.sku; \
         INSERT INTO inbox_event (event_id, processado_em) SELECT pedido, now() FROM g; \
         INSERT INTO reposicao_expedida (event_id, correlation_id, sku, lote_id, qtd, expedido_em, entregue_em) \
           SELECT g.resposta, g.pedido, g.sku, l.id, 1, now(), now() FROM g JOIN lote l ON l.sku = g.sku; \
         INSERT INTO outbox_event (id, tipo, payload, status, criado_em, tentativas, proxima_tentativa_em, enviado_em) \
           SELECT resposta, 'ReposicaoEnviada', \
                  jsonb_build_object('eventId', resposta, 'correlationId', pedido, 'sku', sku, 'qtd', 1, 'ocorridoEm', now()), \
                  'SENT', now(), 1, now(), now() FROM g; \
         ANALYZE"
    ))
    .await?;
    let geracao = t0.elapsed();
    eprintln!(
        "  {n} restocks per side over {p} products written in {:.1} s; giro audit…",
        geracao.as_secs_f64()
    );

    let t = Instant::now();
    let out = tokio::process::Command::new(std::env::current_exe()?)
        .args(["audit", "--json"])
        .env_clear()
        .current_dir(std::env::temp_dir())
        .env("MERCADO_DB_URL", mercado.url())
        .env("ESTOQUE_DB_URL", estoque.url())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .spawn()?
        .wait_with_output()
        .await?;
    let segundos = t.elapsed().as_secs_f64();
    let relatorio: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    anyhow::ensure!(
        out.status.code() == Some(0),
        "giro audit did not agree on the generated shop (exit {:?}): {}",
        out.status.code(),
        serde_json::to_string(&relatorio["divergencias"].as_array().map(|d| &d[..d.len().min(3)]))?
    );
    eprintln!("  giro audit on {n} events per side: {segundos:.1} s, exit 0");
    Ok(json!({"auditoria": {"eventosPorLado": n, "produtos": p, "segundos": (segundos * 10.0).round() / 10.0,
        "geracaoSegundos": (geracao.as_secs_f64() * 10.0).round() / 10.0}}))
}
