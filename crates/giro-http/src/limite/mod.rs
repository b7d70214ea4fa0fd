//! Throttling as layers (issue 13): failed operator logins and anonymous checkouts counted per
//! client, and a 429 problem with `Retry-After` past a limit.
//!
//! - **Who the client is** ([`EnderecoCliente`], set on every request by [`identificar`]): the
//!   peer address, or — when the peer is one of `http.proxies-confiaveis` — the right-most
//!   `X-Forwarded-For` address that is not a trusted proxy (the left part of that header is
//!   whatever the client wrote, so it is never believed).
//! - **Login** ([`Limitador::login_antes`] / [`login_falhou`](Limitador::login_falhou) /
//!   [`login_entrou`](Limitador::login_entrou)): failures are counted per address and per user
//!   name within `login.janela`. Past `login.max-falhas-endereco` that address gets 429. Past
//!   `login.max-falhas-usuario` (all addresses together: a guess spread over many addresses) the
//!   user name gets 429 **only from addresses it never logged in from**, so an attacker can lock
//!   out their own addresses and new ones, never the operator's known ones; and the right
//!   password from another address works as long as that address is not locked itself.
//! - **Checkout** ([`checkout`]): `POST /pedidos` and `POST /pedidos/{id}/pagamento` per address
//!   per minute (`checkout.max-por-minuto`).
//!
//! The counters live behind [`Contadores`]: the services keep them in their database
//! ([`contadores_pg`], shared by every replica; what a test needs can stand in).

pub mod contadores_pg;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{ConnectInfo, Request};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::future::BoxFuture;

use crate::Problem;
use giro_infra::config::rede::Bloco;
use giro_infra::config::{CheckoutConfig, Config, LoginConfig};

/// A count within a window, and how long until the window ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Contagem {
    pub n: u32,
    pub restante: Duration,
}

/// Where counts live. Keys are short ASCII-ish strings (`login:ip:1.2.3.4`).
pub trait Contadores: Send + Sync + 'static {
    /// Adds one to `chave`; a key whose window is over starts a new one of `janela`.
    fn incrementar<'a>(&'a self, chave: &'a str, janela: Duration)
        -> BoxFuture<'a, anyhow::Result<Contagem>>;
    /// The count of `chave` now (0 once its window is over).
    fn consultar<'a>(&'a self, chave: &'a str) -> BoxFuture<'a, anyhow::Result<Contagem>>;
    /// Forgets `chave`.
    fn zerar<'a>(&'a self, chave: &'a str) -> BoxFuture<'a, anyhow::Result<()>>;
}

/// The client of a request, as [`identificar`] worked it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnderecoCliente(pub IpAddr);

/// The throttling state of a service: its counters and limits.
pub struct Limitador {
    contadores: Arc<dyn Contadores>,
    proxies: Vec<Bloco>,
    login: LoginConfig,
    checkout: CheckoutConfig,
}

/// How long an address where the operator logged in stays "known" to the per-user limit.
const CONHECIDO_POR: Duration = Duration::from_secs(30 * 24 * 3600);

impl Limitador {
    /// `config.proxies_confiaveis` were validated at load (`config::rede::proxy_valido`).
    pub fn new(config: &Config, contadores: Arc<dyn Contadores>) -> Arc<Limitador> {
        let proxies = config.proxies_confiaveis.iter().filter_map(|p| Bloco::parse(p)).collect();
        Arc::new(Limitador {
            contadores,
            proxies,
            login: config.login.clone(),
            checkout: config.checkout.clone(),
        })
    }

    fn confiavel(&self, ip: IpAddr) -> bool {
        self.proxies.iter().any(|b| b.contem(ip))
    }

    /// The client address of a request from `par` carrying `xff` (`X-Forwarded-For` values).
    pub fn cliente(&self, par: IpAddr, xff: &[&str]) -> IpAddr {
        if !self.confiavel(par) {
            return par;
        }
        let saltos: Vec<IpAddr> =
            xff.iter().flat_map(|v| v.split(',')).filter_map(|s| s.trim().parse::<IpAddr>().ok()).collect();
        saltos.iter().rev().find(|ip| !self.confiavel(**ip)).or(saltos.first()).copied().unwrap_or(par)
    }

    fn chave_usuario(usuario: &str) -> String {
        // Bounded and case-folded: `Operador` and `operador` are one guess target.
        let u: String = usuario.chars().take(64).collect::<String>().to_lowercase();
        format!("login:usuario:{u}")
    }

    /// Before checking a password: `Err(wait)` when this address, or this user name from an
    /// address it never logged in from, is over its limit.
    pub async fn login_antes(&self, ip: IpAddr, usuario: &str) -> Result<(), Duration> {
        let por_ip = self.consultar(&format!("login:ip:{ip}")).await;
        if por_ip.n >= self.login.max_falhas_endereco {
            return Err(por_ip.restante);
        }
        let por_usuario = self.consultar(&Self::chave_usuario(usuario)).await;
        if por_usuario.n >= self.login.max_falhas_usuario {
            let conhecido =
                self.consultar(&format!("login:conhecido:{}:{ip}", Self::chave_usuario(usuario))).await;
            if conhecido.n == 0 {
                return Err(por_usuario.restante);
            }
        }
        Ok(())
    }

    pub async fn login_falhou(&self, ip: IpAddr, usuario: &str) {
        let j = self.login.janela;
        self.incrementar(&format!("login:ip:{ip}"), j).await;
        self.incrementar(&Self::chave_usuario(usuario), j).await;
    }

    /// A successful login clears the address's failures and remembers it for the user name.
    pub async fn login_entrou(&self, ip: IpAddr, usuario: &str) {
        if let Err(e) = self.contadores.zerar(&format!("login:ip:{ip}")).await {
            tracing::warn!(error = %format!("{e:#}"), "throttle counters unavailable");
        }
        self.incrementar(&format!("login:conhecido:{}:{ip}", Self::chave_usuario(usuario)), CONHECIDO_POR)
            .await;
    }

    /// One more checkout call from `ip`: `Err(wait)` past `checkout.max-por-minuto`.
    pub async fn checkout(&self, ip: IpAddr) -> Result<(), Duration> {
        if self.checkout.max_por_minuto == 0 {
            return Ok(());
        }
        let c = self.incrementar(&format!("checkout:{ip}"), Duration::from_secs(60)).await;
        if c.n > self.checkout.max_por_minuto {
            return Err(c.restante);
        }
        Ok(())
    }

    /// Units one address may hold in unpaid reservations (`None` = no bound).
    pub fn max_unidades_reservadas(&self) -> Option<i64> {
        let m = self.checkout.max_unidades_reservadas;
        (m > 0).then_some(i64::from(m))
    }

    // A store that fails never blocks a request: throttling is lost, service is not.
    async fn consultar(&self, chave: &str) -> Contagem {
        self.contadores.consultar(chave).await.unwrap_or_else(|e| {
            tracing::warn!(error = %format!("{e:#}"), "throttle counters unavailable");
            Contagem { n: 0, restante: Duration::ZERO }
        })
    }

    async fn incrementar(&self, chave: &str, janela: Duration) -> Contagem {
        self.contadores.incrementar(chave, janela).await.unwrap_or_else(|e| {
            tracing::warn!(error = %format!("{e:#}"), "throttle counters unavailable");
            Contagem { n: 0, restante: Duration::ZERO }
        })
    }
}

/// The 429 answer: problem+json and `Retry-After` in whole seconds (at least 1).
pub fn muitas(detalhe: &str, espera: Duration) -> Response {
    let s = espera.as_secs() + u64::from(espera.subsec_nanos() > 0);
    let s = s.max(1);
    let mut res = Problem::new(StatusCode::TOO_MANY_REQUESTS, format!("{detalhe}; tente novamente em {s} s"))
        .into_response();
    if let Ok(v) = HeaderValue::from_str(&s.to_string()) {
        res.headers_mut().insert(header::RETRY_AFTER, v);
    }
    res
}

/// Middleware on every API request: the [`EnderecoCliente`] and the [`Limitador`] as extensions.
pub async fn identificar(lim: Arc<Limitador>, mut req: Request, next: Next) -> Response {
    let par = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip())
        .unwrap_or(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED));
    let xff: Vec<&str> =
        req.headers().get_all("x-forwarded-for").iter().filter_map(|v| v.to_str().ok()).collect();
    let cliente = lim.cliente(par, &xff);
    req.extensions_mut().insert(EnderecoCliente(cliente));
    req.extensions_mut().insert(lim);
    next.run(req).await
}

/// Route layer of `POST /pedidos` and `POST /pedidos/{id}/pagamento`.
pub async fn checkout(req: Request, next: Next) -> Response {
    let lim = req.extensions().get::<Arc<Limitador>>().cloned();
    let cliente = req.extensions().get::<EnderecoCliente>().copied();
    if let (Some(lim), Some(EnderecoCliente(ip))) = (lim, cliente) {
        if let Err(espera) = lim.checkout(ip).await {
            tracing::warn!(client = %ip, "checkout rate limit reached");
            return muitas("pedidos demais deste endereço", espera);
        }
    }
    next.run(req).await
}

/// The client address a request carries (unspecified when none was worked out).
pub fn endereco(req_ext: &axum::http::Extensions) -> IpAddr {
    req_ext.get::<EnderecoCliente>().map(|e| e.0).unwrap_or(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap_or(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED))
    }

    #[test]
    fn cidr_blocks_match_their_addresses() {
        let b = Bloco::parse("10.0.0.0/8").map(|b| b.contem(ip("10.1.2.3")));
        assert_eq!(b, Some(true));
        assert_eq!(Bloco::parse("10.0.0.0/8").map(|b| b.contem(ip("11.0.0.1"))), Some(false));
        assert_eq!(Bloco::parse("::1").map(|b| b.contem(ip("::1"))), Some(true));
        assert_eq!(Bloco::parse("127.0.0.1").map(|b| b.contem(ip("::ffff:127.0.0.1"))), Some(true));
        assert!(Bloco::parse("10.0.0.0/33").is_none());
        assert!(Bloco::parse("x").is_none());
    }

    /// Counters that count nothing: these tests look at addresses only.
    struct Nenhum;

    impl Contadores for Nenhum {
        fn incrementar<'a>(&'a self, _: &'a str, _: Duration) -> BoxFuture<'a, anyhow::Result<Contagem>> {
            Box::pin(async { Ok(Contagem { n: 0, restante: Duration::ZERO }) })
        }
        fn consultar<'a>(&'a self, _: &'a str) -> BoxFuture<'a, anyhow::Result<Contagem>> {
            Box::pin(async { Ok(Contagem { n: 0, restante: Duration::ZERO }) })
        }
        fn zerar<'a>(&'a self, _: &'a str) -> BoxFuture<'a, anyhow::Result<()>> {
            Box::pin(async { Ok(()) })
        }
    }

    fn limitador(proxies: &[&str]) -> Limitador {
        Limitador {
            contadores: Arc::new(Nenhum),
            proxies: proxies.iter().filter_map(|p| Bloco::parse(p)).collect(),
            login: LoginConfig {
                max_falhas_endereco: 1,
                max_falhas_usuario: 1,
                janela: Duration::from_secs(60),
            },
            checkout: CheckoutConfig {
                max_por_minuto: 1,
                max_unidades_reservadas: 1,
                max_unidades_por_produto: 1,
            },
        }
    }

    #[test]
    fn x_forwarded_for_counts_only_from_a_trusted_proxy_right_to_left() {
        let sem = limitador(&[]);
        assert_eq!(sem.cliente(ip("127.0.0.1"), &["1.2.3.4"]), ip("127.0.0.1"));
        let com = limitador(&["127.0.0.1", "10.0.0.0/8"]);
        // The client wrote the left part; the proxies appended the right part.
        assert_eq!(com.cliente(ip("127.0.0.1"), &["6.6.6.6, 1.2.3.4, 10.1.1.1"]), ip("1.2.3.4"));
        assert_eq!(com.cliente(ip("127.0.0.1"), &["1.2.3.4", "10.1.1.1"]), ip("1.2.3.4"));
        assert_eq!(com.cliente(ip("127.0.0.1"), &["lixo"]), ip("127.0.0.1"));
        assert_eq!(com.cliente(ip("8.8.8.8"), &["1.2.3.4"]), ip("8.8.8.8"));
    }
}
