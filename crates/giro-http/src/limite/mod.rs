//! Throttling as layers (issues 13 and 25): operator logins and anonymous checkouts counted per
//! client, a 429 problem with `Retry-After` past a limit, and a 503 when the counts cannot be
//! read or written.
//!
//! - **Who the client is** ([`EnderecoCliente`], set by [`identificar`]): the peer address, or —
//!   when the peer is one of `http.proxies-confiaveis` — the right-most `X-Forwarded-For` address
//!   that is not a trusted proxy (the left part is whatever the client wrote); then its
//!   **neighbourhood** ([`vizinhanca`]): an IPv6 client is its `/http.prefixo-ipv6` network, since
//!   one subscriber holds a whole /64. Every per-address bound and log line sees the neighbourhood.
//! - **Login** ([`Limitador::login_antes`] / [`login_entrou`](Limitador::login_entrou)): every
//!   attempt is counted *before* the password is checked, check and increment in one statement
//!   ([`ContadoresPg::incrementar`]), so N concurrent guesses get at most the limit through,
//!   whatever the replicas. Past `login.max-falhas-endereco` attempts within `login.janela` the
//!   address gets 429; a success clears it. Past `login.max-falhas-usuario` (all addresses: a
//!   guess spread over many) the user name gets 429 **only from addresses it never logged in
//!   from**, so an attacker can lock out their own addresses, never the operator's known ones.
//! - **Fails closed**: counters that cannot be kept (the database is away) or a full table
//!   (`http.max-contadores`) make the login 503 *before* the password is checked, so nobody
//!   guesses unthrottled — **except from an address the user name logged in from before** (its
//!   `login:conhecido` key, kept 30 days): filling the table from ~9 000 addresses must not lock
//!   the operator out (issue 37 §3); such attempts go uncounted while the table is full. The
//!   checkout's rate is 503 on a counter error too, but a full table lets a new address's checkout
//!   through uncounted: its reservations are bounded by themselves, and refusing would hand
//!   whoever fills the table with logins the shop's front door.
//! - **Checkout** ([`Limitador::por_minuto`]): `POST /pedidos` and `POST /pedidos/{id}/pagamento`
//!   per address per minute (`checkout.max-por-minuto`), by the same atomic increment.
//!
//! The services keep the counters in their database ([`contadores_pg`], shared by every replica,
//! bounded and purged).

pub mod contadores_pg;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use crate::Problem;
use axum::extract::{ConnectInfo, Request};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
pub use contadores_pg::ContadoresPg;
use giro_infra::config::rede::{vizinhanca, Bloco};
use giro_infra::config::{LimitesHttp, LoginConfig};

/// A count within a window, and how long until the window ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Contagem {
    pub n: u32,
    pub restante: Duration,
}

/// The client of a request, as [`identificar`] worked it out: its neighbourhood (an IPv6
/// address aggregated to `http.prefixo-ipv6`), what every per-address bound counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnderecoCliente(pub IpAddr);

/// Why a throttled request is not let through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recusa {
    /// Over the limit: 429, try again after this.
    Espera(Duration),
    /// The counters could not be read or written, or their table is full: 503.
    Indisponivel,
}

/// The throttling state of a service: its counters and limits.
pub struct Limitador {
    contadores: ContadoresPg,
    proxies: Vec<Bloco>,
    prefixo_ipv6: u8,
    max_chaves: u64,
    login: LoginConfig,
}

/// How long an address where the operator logged in stays "known" to the per-user limit.
const CONHECIDO_POR: Duration = Duration::from_secs(30 * 24 * 3600);

/// The count of keys no limit stops (a user name's attempts, a known address).
const SEM_TETO: u32 = i32::MAX as u32;

impl Limitador {
    /// `proxies` (`http.proxies-confiaveis`) were validated at load (`config::rede::proxy_valido`).
    pub fn new(
        proxies: &[String],
        limites: &LimitesHttp,
        login: &LoginConfig,
        contadores: ContadoresPg,
    ) -> Arc<Limitador> {
        let proxies = proxies.iter().filter_map(|p| Bloco::parse(p)).collect();
        Arc::new(Limitador {
            contadores,
            proxies,
            prefixo_ipv6: limites.prefixo_ipv6,
            max_chaves: limites.max_contadores as u64,
            login: login.clone(),
        })
    }

    fn confiavel(&self, ip: IpAddr) -> bool {
        self.proxies.iter().any(|b| b.contem(ip))
    }

    /// The client address of a request from `par` carrying `xff` (`X-Forwarded-For` values):
    /// the exact address (proxies are matched on it); [`identificar`] aggregates it.
    pub fn cliente(&self, par: IpAddr, xff: &[&str]) -> IpAddr {
        if !self.confiavel(par) {
            return par;
        }
        let saltos: Vec<IpAddr> =
            xff.iter().flat_map(|v| v.split(',')).filter_map(|s| s.trim().parse::<IpAddr>().ok()).collect();
        saltos.iter().rev().find(|ip| !self.confiavel(**ip)).or(saltos.first()).copied().unwrap_or(par)
    }

    /// The neighbourhood a per-address bound counts `ip` as.
    pub fn vizinhanca(&self, ip: IpAddr) -> IpAddr {
        vizinhanca(ip, self.prefixo_ipv6)
    }

    fn chave_usuario(usuario: &str) -> String {
        // Bounded and case-folded: `Operador` and `operador` are one guess target.
        let u: String = usuario.chars().take(64).collect::<String>().to_lowercase();
        format!("login:usuario:{u}")
    }

    fn chave_conhecido(ip: IpAddr, usuario: &str) -> String {
        format!("login:conhecido:{}:{ip}", Self::chave_usuario(usuario))
    }

    /// Counts one login attempt of `usuario` from `ip`, before its password is checked:
    /// `Err(Espera)` when this address, or this user name from an address it never logged in
    /// from, is over its limit; `Err(Indisponivel)` when the counts cannot be kept.
    pub async fn login_antes(&self, ip: IpAddr, usuario: &str) -> Result<(), Recusa> {
        let max_ip = self.login.max_falhas_endereco;
        let chave_ip = format!("login:ip:{ip}");
        let Some(por_ip) = self.contar(&chave_ip, self.login.janela, max_ip.saturating_add(1)).await? else {
            return self.se_conhecido(ip, usuario).await;
        };
        if por_ip.n > max_ip {
            return Err(Recusa::Espera(por_ip.restante));
        }
        // Counted whatever the outcome, so concurrent guesses from many addresses each take a
        // slot of their own; a successful login gives its slot back.
        let Some(por_usuario) =
            self.contar(&Self::chave_usuario(usuario), self.login.janela, SEM_TETO).await?
        else {
            return self.se_conhecido(ip, usuario).await;
        };
        if por_usuario.n > self.login.max_falhas_usuario {
            return match self.conhecido(ip, usuario).await? {
                true => Ok(()),
                false => Err(Recusa::Espera(por_usuario.restante)),
            };
        }
        Ok(())
    }

    /// Whether `usuario` logged in from `ip` before (within 30 days).
    async fn conhecido(&self, ip: IpAddr, usuario: &str) -> Result<bool, Recusa> {
        let c = self.contadores.consultar(&Self::chave_conhecido(ip, usuario)).await;
        c.map(|c| c.n > 0).map_err(|e| indisponivel(&e))
    }

    /// The table is full: only an address `usuario` logged in from before goes on (see the
    /// module's documentation); any other gets 503, whatever its password.
    async fn se_conhecido(&self, ip: IpAddr, usuario: &str) -> Result<(), Recusa> {
        if self.conhecido(ip, usuario).await? {
            tracing::warn!(client = %ip, "throttle counters full: a login from a known address goes on uncounted");
            return Ok(());
        }
        tracing::warn!(max = self.max_chaves, "throttle counters full: refusing new keys");
        Err(Recusa::Indisponivel)
    }

    /// A successful login clears the address's count, gives the attempt back to the user name's,
    /// and remembers the address for the user name. A failure here is logged and the login goes
    /// on: the password was right, and refusing it now would lock the operator out, not an
    /// attacker.
    pub async fn login_entrou(&self, ip: IpAddr, usuario: &str) {
        if let Err(e) = self.contadores.zerar(&format!("login:ip:{ip}")).await {
            indisponivel(&e);
        }
        if let Err(e) = self.contadores.descontar(&Self::chave_usuario(usuario)).await {
            indisponivel(&e);
        }
        match self.contar(&Self::chave_conhecido(ip, usuario), CONHECIDO_POR, SEM_TETO).await {
            Ok(Some(_)) => {}
            r => tracing::warn!(recusa = ?r, "the operator's known address was not recorded"),
        }
    }

    /// One more call of the rate `nome` from `ip` (a service's per-address bound per minute, such
    /// as mercado's checkout): `Err(Espera)` past `max` (0: no bound), `Err(Indisponivel)` when
    /// the count cannot be kept (a full table lets it through: see the module's documentation).
    pub async fn por_minuto(&self, nome: &str, ip: IpAddr, max: u32) -> Result<(), Recusa> {
        if max == 0 {
            return Ok(());
        }
        match self.contar(&format!("{nome}:{ip}"), Duration::from_secs(60), max.saturating_add(1)).await? {
            Some(c) if c.n > max => Err(Recusa::Espera(c.restante)),
            Some(_) => Ok(()),
            None => {
                tracing::warn!(client = %ip, "throttle counters full: {nome} not counted");
                Ok(())
            }
        }
    }

    /// One atomic increment: `None` when the key is new and the table full; a failure is
    /// [`Recusa::Indisponivel`].
    async fn contar(&self, chave: &str, janela: Duration, teto: u32) -> Result<Option<Contagem>, Recusa> {
        self.contadores.incrementar(chave, janela, teto, self.max_chaves).await.map_err(|e| indisponivel(&e))
    }
}

fn indisponivel(e: &anyhow::Error) -> Recusa {
    // A lost session here is the request's lost session: the re-run layer runs it again (the
    // counter's own transaction was rolled back, or — its COMMIT cut — counts one more).
    if let Some(f) = giro_infra::db::na_cadeia(e) {
        giro_infra::db::reexecucao::marcar_se_sessao_perdida(f);
    }
    tracing::warn!(error = %format!("{e:#}"), "throttle counters unavailable");
    Recusa::Indisponivel
}

/// The answer to a [`Recusa`]: 429 (see [`muitas`]) or 503 "tente novamente".
pub fn recusar(detalhe: &str, r: Recusa) -> Response {
    match r {
        Recusa::Espera(espera) => muitas(detalhe, espera),
        Recusa::Indisponivel => Problem::unavailable().into_response(),
    }
}

/// The 429 answer: problem+json and `Retry-After` in whole seconds (at least 1).
pub fn muitas(detalhe: &str, espera: Duration) -> Response {
    let s = (espera.as_secs() + u64::from(espera.subsec_nanos() > 0)).max(1);
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
    let cliente = lim.vizinhanca(lim.cliente(par, &xff));
    req.extensions_mut().insert(EnderecoCliente(cliente));
    req.extensions_mut().insert(lim);
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

    fn limitador(proxies: &[&str]) -> Limitador {
        // These tests look at addresses only: the pool connects lazily and is never used.
        let db = giro_infra::config::DbConfig { pg: tokio_postgres::Config::new() };
        Limitador {
            contadores: ContadoresPg::new(giro_infra::db::pool(&db, 1, Duration::from_secs(1)).unwrap()),
            proxies: proxies.iter().filter_map(|p| Bloco::parse(p)).collect(),
            prefixo_ipv6: 64,
            max_chaves: 10,
            login: LoginConfig {
                max_falhas_endereco: 1,
                max_falhas_usuario: 1,
                janela: Duration::from_secs(60),
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

    #[test]
    fn a_client_is_counted_by_its_neighbourhood_after_the_proxies_are_skipped() {
        let com = limitador(&["127.0.0.1", "2001:db8:ffff::/48"]);
        let c = |par: &str, xff: &str| com.vizinhanca(com.cliente(ip(par), &[xff]));
        // The proxy is matched on its exact address; the client it names is aggregated.
        assert_eq!(c("127.0.0.1", "2001:db8:1:2:aaaa::1, 2001:db8:ffff::9"), ip("2001:db8:1:2::"));
        assert_eq!(c("127.0.0.1", "2001:db8:1:2:ffff::1"), ip("2001:db8:1:2::"));
        assert_eq!(c("127.0.0.1", "203.0.113.7"), ip("203.0.113.7"));
        assert_eq!(c("2001:db8:1:3::5", "1.2.3.4"), ip("2001:db8:1:3::"));
    }
}
