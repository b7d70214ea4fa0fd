//! mercado, the storefront: catalogue, checkout with reservations, simulated payment, the
//! reservation expiry sweep, the restock trigger and the consumers of estoque's answers.
//!
//! This module is the role's composition root; it never imports `estoque` (the two share only
//! the contracts, the outbox/inbox machinery and the infrastructure). The map:
//!
//! - [`prateleira`]: the product and its shelf rules, pure; [`produto`]: its table's SQL and the
//!   locked row ([`produto::Travado`]) that every shelf write and the restock trigger take.
//! - [`cadastro`] (`POST /produtos`) with the lookup in [`catalogo_estoque`] (HTTP, no tx open).
//! - [`checkout`] (`POST /pedidos`), [`pedido`] and [`reserva`] (their tables), [`pagamento`].
//! - [`reposicao`]: restock requests and the trigger, which writes the outbox row.
//! - [`expiracao`]: the reservation expiry sweep; [`consumidores`]: estoque's events.
//! - [`routes`]: the thin HTTP layer; [`erro`]: every status and message; [`dinheiro`]: exact money.
//! - [`Tx`]: a transaction in mercado's database, what every write above takes; an estoque
//!   transaction does not compile there.
//!
//! The decisions the spec leaves open are each documented in the module concerned (the lock order
//! in [`produto`], `preco` in [`dinheiro`], the lookup's "no answer" in [`catalogo_estoque`], the
//! 400s in [`routes`] and [`checkout`], …). Two more: a non-UUID order id is a 400 and a malformed
//! SKU in `GET /produtos/{sku}` a 404; `PedidoDetalhe.itens` come in the order they were recorded
//! (ascending SKU).

/// A status column as an enum ([`giro_infra::nomes!`]): each variant with the text its row
/// holds, spelled once (`nome`, and `de_texto` back, a text no variant has being a broken
/// invariant).
macro_rules! status {
    ($(#[$m:meta])* $nome:ident, $o_que:literal { $($(#[$vm:meta])* $v:ident = $texto:literal,)* }) => {
        giro_infra::nomes! { $(#[$m])* pub enum $nome { $($(#[$vm])* $v = $texto,)* } }

        impl $nome {
            pub fn de_texto(s: &str) -> Result<Self, $crate::mercado::erro::ErroMercado> {
                use $crate::mercado::erro::ErroMercado::EstadoInvalido;
                let desconhecido = concat!("status de ", $o_que, " desconhecido: ");
                Self::de_nome(s).ok_or_else(|| EstadoInvalido(desconhecido.to_string() + s))
            }
        }
    };
}

pub mod cadastro;
pub mod catalogo_estoque;
pub mod checkout;
pub mod consumidores;
pub mod dinheiro;
pub mod erro;
pub mod expiracao;
pub mod pagamento;
pub mod pedido;
pub mod prateleira;
pub mod produto;
pub mod reposicao;
pub mod reserva;
pub mod routes;
pub mod saida;

use std::sync::Arc;

use futures_util::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use crate::config::{Config, Servico};
use crate::server::{self, Contexto, Role};
use giro_contracts::{EventoIntegracao, TipoEvento};
use giro_outbox::inbox::{Consumidor, EventoInvalido};

/// A transaction in mercado's database: what every mercado write takes. Opened with
/// `Tx::begin(&db, &mut client)`; an estoque function does not accept it ([`giro_infra::db::Tx`]):
///
/// ```compile_fail,E0308
/// # async fn f(db: &giro_infra::db::Db) -> Result<(), Box<dyn std::error::Error>> {
/// let mut client = db.client().await?;
/// let tx = giro_servicos::mercado::Tx::begin(db, &mut client).await?;
/// giro_servicos::estoque::produto::bloquear(&tx, "7894900011517").await?;
/// # Ok(()) }
/// ```
pub type Tx<'a> = giro_infra::db::Tx<'a, Mercado>;

/// mercado's database: the marker of its transactions ([`Tx`]) and of its outbox's repairs.
#[derive(Debug)]
pub enum Mercado {}

/// The business series mercado emits, described to the recorder at start.
pub const METRICAS: &[giro_http::metrics::Serie] = {
    use giro_http::metrics::{Serie, Tipo};
    &[
        Serie {
            nome: "giro_orders_total",
            tipo: Tipo::Contador,
            ajuda: "Orders by event: created (checkout), paid, expired",
        },
        Serie { nome: "giro_units_sold_total", tipo: Tipo::Contador, ajuda: "Units in paid orders" },
        Serie {
            nome: "giro_stockouts_total",
            tipo: Tipo::Contador,
            ajuda: "Checkouts that left a product's shelf at zero, per product",
        },
        Serie {
            nome: "giro_restock_latency_seconds",
            tipo: Tipo::Histograma,
            ajuda: "Restock round trip: from mercado's request to the shelf credited by the shipment",
        },
    ]
};

pub async fn serve(config: Config, shutdown: CancellationToken) -> anyhow::Result<()> {
    server::run(Servico::Mercado, config, build, shutdown).await
}

/// The role: its routes, its consumer, the expiry sweep (unless disabled) and the purge of
/// expired `Idempotency-Key`s.
pub fn build(ctx: &Contexto) -> anyhow::Result<Role<Mercado>> {
    let catalogo = catalogo_estoque::CatalogoEstoque::new(
        &ctx.config.estoque_url,
        ctx.config.token_servico(Servico::Estoque)?.clone(),
        ctx.config.estoque_timeout,
    )?;
    let reserva = &ctx.config.reserva;
    let estado = Arc::new(routes::Estado {
        db: ctx.db.clone(),
        catalogo,
        ttl: reserva.ttl,
        checkout: ctx.config.checkout.clone(),
    });
    if reserva.expiracao_habilitada {
        // Never asleep longer than a TTL: a reservation written just after the sweep found none
        // is due a TTL later, and the sweep must be awake to see it then.
        let intervalo =
            reserva.intervalo_expiracao.min(reserva.ttl).max(std::time::Duration::from_millis(100));
        let (db, lote) = (ctx.db.clone(), reserva.lote_expiracao);
        ctx.supervisionar("expiracao-reservas", true, move |vivo, shutdown| {
            expiracao::agendar(db.clone(), intervalo, lote, shutdown, vivo)
        });
    }
    // Every business counter from the start: a dashboard or an alert reads 0, not "no data"
    // until the first stock-out (issue 37 §3).
    for evento in ["created", "paid", "expired"] {
        metrics::counter!("giro_orders_total", "event" => evento).increment(0);
    }
    metrics::counter!("giro_units_sold_total").increment(0);
    metrics::counter!("giro_stockouts_total").increment(0);
    let db = ctx.db.clone();
    ctx.supervisionar("purga-idempotencia", false, move |vivo, shutdown| {
        checkout::limpar_chaves(db.clone(), shutdown, vivo)
    });
    Ok(Role {
        router: routes::router(estado, ctx.seguranca.clone()),
        consumidor: Arc::new(ConsumidorMercado),
        metricas: None,
        series: METRICAS,
        reparo: Arc::new(saida::ReparoMercado),
        busca_produto: Some(
            "SELECT sku FROM produto_vitrine \
              WHERE (SELECT bool_and(busca LIKE giro_normalizar(w)) FROM unnest($1::text[]) AS w)",
        ),
    })
}

pub use giro_infra::db::agora;

struct ConsumidorMercado;

impl Consumidor<Mercado> for ConsumidorMercado {
    type Evento = EventoIntegracao;

    fn aceitos(&self) -> &'static [&'static str] {
        const {
            &[
                TipoEvento::ReposicaoEnviada.nome(),
                TipoEvento::ReposicaoNegada.nome(),
                TipoEvento::ProdutoClassificado.nome(),
            ]
        }
    }

    fn aplicar<'a>(
        &'a self,
        tx: &'a Tx<'_>,
        evento: &'a EventoIntegracao,
    ) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async move {
            let r = match evento {
                EventoIntegracao::ReposicaoEnviada(e) => {
                    consumidores::reposicao_enviada(tx, e, agora()).await
                }
                EventoIntegracao::ReposicaoNegada(e) => consumidores::reposicao_negada(tx, e).await,
                EventoIntegracao::ProdutoClassificado(e) => consumidores::produto_classificado(tx, e).await,
                EventoIntegracao::ReposicaoSolicitada(_) => {
                    anyhow::bail!("mercado does not consume {}", evento.tipo())
                }
            };
            match r {
                // A rule the event's data breaks (a credit beyond the shelf's range): permanent.
                Err(erro::ErroMercado::Invalido(m)) => Err(EventoInvalido(m).into()),
                other => Ok(other?),
            }
        })
    }
}
