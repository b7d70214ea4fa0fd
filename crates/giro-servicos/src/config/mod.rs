//! Configuration: resolved once at start into a typed, validated [`Config`].
//!
//! Layers (SPEC §1), lowest first: built-in defaults < TOML file < `.env` < environment < flags
//! (see [`layers`]). Values are parsed here with messages that name the key and where it came
//! from. Secrets are [`Secret`]s: redacted in `Debug`, compared in constant time. A secret that is
//! present but too short is an error at load; a missing one is an error only for a role that needs
//! it ([`Config::token_servico`], [`Config::operador`]), so `giro migrate` runs without tokens.
//! Database URLs follow the same rule ([`Config::db`]): none has a default — the development
//! cluster's are supplied by `giro dev` — and each role asks only for the databases it uses:
//! `giro mercado serve` mercado's, `giro estoque serve` estoque's, `giro publisher` and
//! `giro migrate` those of their `--db` (both without it, or with `all`), `giro outbox` the one
//! its `--db` names (both for `status` and `list` without it), `giro audit` and
//! `giro config --check` both.
//! Every configuration error ends the process with exit code 2. The typed pieces the lower crates
//! take (a database, the relay's settings, the listeners' bounds) are `giro_infra::config`'s.

pub mod keys;
pub mod layers;
mod leitor;
pub mod report;

use std::path::PathBuf;
use std::time::Duration;

use giro_infra::config::{
    duration, ConfigError, DbConfig, LimitesHttp, LogFormat, LoginConfig, Operador, OutboxConfig, PoolLimits,
    Secret, SessaoConfig, Transporte,
};
pub use layers::{Layers, Origin, Sources};
use leitor::Reader;

giro_infra::nomes! {
    /// The two services; each has its own database, port, token and events endpoint.
    #[derive(PartialOrd, Ord, clap::ValueEnum)]
    pub enum Servico {
        Mercado = "mercado",
        Estoque = "estoque",
    }
}

impl Servico {
    /// The variable that sets this service's database URL, for messages that name the database.
    pub fn var_db_url(self) -> &'static str {
        self.variavel("db-url")
    }

    /// The variable that sets this service's key `chave` (`db-url-ddl` → `GIRO_MERCADO_DB_URL_DDL`).
    pub fn variavel(self, chave: &str) -> &'static str {
        keys::by_name(&format!("{}.{chave}", self.nome())).map_or("?", |k| k.env)
    }

    /// The peer that receives this service's events.
    pub fn par(self) -> Servico {
        match self {
            Servico::Mercado => Servico::Estoque,
            Servico::Estoque => Servico::Mercado,
        }
    }
}

/// One service's own settings.
#[derive(Clone, Debug)]
pub struct ServicoConfig {
    /// The service's database (`db-url`, completed by `db-usuario` / `db-senha`); `None` when
    /// unset — read it through [`Config::db`], which makes that an error naming the variable.
    pub db: Option<DbConfig>,
    /// The schema owner `giro migrate` connects as, when it is not the runtime role (`db`'s):
    /// migrations run with it, then the runtime role is granted what the service does (DML).
    pub db_ddl: Option<DbConfig>,
    /// PostgreSQL itself, past any connection pooler (`db-url-direta`): the separate publisher's
    /// `LISTEN` and `giro migrate` (when `db-url-ddl` is not set) use it under `db.pooler =
    /// "transacao"`, where a session outlives no transaction on `db-url`.
    pub db_direta: Option<DbConfig>,
    /// A read-only copy (a standby, or a balancer's replica port) for the public read routes
    /// (`crate::db::leitura`); `None` = every read on `db`.
    pub db_leitura: Option<DbConfig>,
    pub porta: u16,
    /// Base URL where this service receives events (`POST {url}/eventos`); its peer's publisher sends there.
    pub eventos_url: String,
    /// This service's own token: incoming service calls must present it; callers send it.
    pub token_servico: Option<Secret>,
}

#[derive(Clone, Debug)]
pub struct ReservaConfig {
    pub ttl: Duration,
    pub intervalo_expiracao: Duration,
    pub lote_expiracao: i64,
    pub expiracao_habilitada: bool,
}

#[derive(Clone, Debug)]
pub struct TagsConfig {
    pub worker_url: String,
    pub worker_token: Option<Secret>,
    pub timeout: Duration,
    pub reclassificacao_habilitada: bool,
    pub intervalo_reclassificacao: Duration,
    pub lote_reclassificacao: i64,
}

#[derive(Clone, Debug)]
pub struct WebConfig {
    pub porta_vitrine: u16,
    pub porta_painel: u16,
    pub dir_vitrine: Option<PathBuf>,
    pub dir_painel: Option<PathBuf>,
    /// The storefront's public URL, for the dashboard's link (`/config.json` of its listener).
    pub url_vitrine: Option<String>,
}

/// Anonymous checkout bounds (issue 13), per client address.
#[derive(Clone, Debug)]
pub struct CheckoutConfig {
    /// `POST /pedidos` and `POST /pedidos/{id}/pagamento` per address per minute; 0 = no limit.
    pub max_por_minuto: u32,
    /// Units one address may hold in unpaid reservations at once; 0 = no bound.
    pub max_unidades_reservadas: u32,
    /// Units of one SKU one address may hold in unpaid reservations at once; 0 = no bound.
    pub max_unidades_por_produto: u32,
}

#[derive(Clone, Debug)]
pub struct Config {
    pub mercado: ServicoConfig,
    pub estoque: ServicoConfig,
    /// estoque base URL for mercado's synchronous product lookup (SPEC §3.10).
    pub estoque_url: String,
    pub estoque_timeout: Duration,
    operador_usuario: Option<String>,
    operador_senha: Option<Secret>,
    pub sessao: SessaoConfig,
    pub db_pool_max: usize,
    pub db_timeout: Duration,
    /// Session timeouts and connection lifetime of the services' and publishers' pools.
    pub db_limites: PoolLimits,
    /// A read copy whose replay lags more than this is not read from (`crate::db::leitura`).
    pub db_atraso_maximo_leitura: Duration,
    /// How long a request re-run after a lost session waits for a session that can write.
    pub db_espera_reexecucao: Duration,
    pub endereco: std::net::IpAddr,
    pub prazo_desligamento: Duration,
    /// On SIGTERM, how long the listeners keep serving (every answer closing its connection,
    /// `/readyz` 503) before they stop accepting: the balancer's time to take the replica out.
    pub drenagem: Duration,
    pub limites_http: LimitesHttp,
    /// Proxies whose `X-Forwarded-For` is believed (addresses or CIDR blocks).
    pub proxies_confiaveis: Vec<String>,
    /// Session and CSRF cookies get `Secure` (the public origin is https).
    pub cookies_seguros: bool,
    pub login: LoginConfig,
    pub checkout: CheckoutConfig,
    pub log_format: LogFormat,
    pub outbox: OutboxConfig,
    pub inbox_retencao: Duration,
    /// `giro audit` reports a `PENDING` event older than this as delayed.
    pub audit_atraso: Duration,
    pub reserva: ReservaConfig,
    pub tags: TagsConfig,
    pub web: WebConfig,
    /// Where a separate `giro publisher` serves `/metrics` and `/healthz`; `None` = no listener.
    pub publisher_porta_metricas: Option<u16>,
}

const GENERATE: &str = "generate one with `openssl rand -hex 32`";

impl Config {
    /// Reads every source and resolves the configuration.
    pub fn load(src: &Sources) -> Result<Config, ConfigError> {
        Config::from_layers(&Layers::resolve(src)?)
    }

    pub fn from_layers(l: &Layers) -> Result<Config, ConfigError> {
        Config::from_layers_noting(l, &std::cell::Cell::new(None))
    }

    /// Every problem of the configuration, not only the first: each refused key is set back to its
    /// built-in default and the rest read again, then the databases and secrets every role needs
    /// are checked (`giro config --check` on a host that runs both services).
    pub fn problems(l: &Layers) -> Vec<ConfigError> {
        let mut l = l.clone();
        let mut problems = Vec::new();
        let mut refused_keys = Vec::new();
        for _ in 0..=keys::KEYS.len() {
            let refused = std::cell::Cell::new(None);
            match Config::from_layers_noting(&l, &refused) {
                Ok(config) => {
                    let unset = |key: &str| !refused_keys.contains(&key);
                    for s in Servico::TODOS.into_iter().filter(|s| unset(&format!("{s}.db-url"))) {
                        problems.extend(config.db(s).err());
                    }
                    for s in Servico::TODOS.into_iter().filter(|s| unset(&format!("{s}.token-servico"))) {
                        problems.extend(config.token_servico(s).err());
                    }
                    problems.extend(config.operador_usuario.is_none().then(sem_usuario));
                    if config.operador_senha.is_none() && unset("operador.senha") {
                        problems.push(sem_senha());
                    }
                    break;
                }
                Err(e) => {
                    problems.push(e);
                    match refused.get() {
                        Some(key) => {
                            refused_keys.push(key);
                            l.reset_to_default(key);
                        }
                        // A rule across keys: nothing to set back, so nothing more to learn.
                        None => break,
                    }
                }
            }
        }
        problems
    }

    fn from_layers_noting(
        l: &Layers,
        refused: &std::cell::Cell<Option<&'static str>>,
    ) -> Result<Config, ConfigError> {
        let r = Reader(l, refused);
        let servico = |s: Servico| -> Result<ServicoConfig, ConfigError> {
            let n = s.nome();
            Ok(ServicoConfig {
                db: r.opt(&format!("{n}.db-url"), |r, _| r.db(n))?,
                db_ddl: r.opt(&format!("{n}.db-url-ddl"), |r, k| r.db_url(k, n))?,
                db_direta: r.opt(&format!("{n}.db-url-direta"), |r, k| r.db_url(k, n))?,
                db_leitura: r.opt(&format!("{n}.db-url-leitura"), |r, k| r.db_url(k, n))?,
                porta: r.parse(&format!("{n}.porta"))?,
                eventos_url: r.url(&format!("{n}.eventos-url"))?,
                token_servico: r.secret(&format!("{n}.token-servico"), 32, true)?,
            })
        };
        let config = Config {
            mercado: servico(Servico::Mercado)?,
            estoque: servico(Servico::Estoque)?,
            estoque_url: r.url("estoque.url")?,
            estoque_timeout: r.duration("estoque.timeout")?,
            operador_usuario: r.opt_string("operador.usuario"),
            operador_senha: r.secret("operador.senha", 8, false)?,
            sessao: SessaoConfig {
                ttl: r.duration("sessao.ttl")?,
                intervalo_limpeza: r.duration("sessao.intervalo-limpeza")?,
                lote_limpeza: r.positive("sessao.lote-limpeza")?,
            },
            db_pool_max: r.positive("db.pool-max")?,
            db_timeout: r.duration("db.timeout")?,
            db_limites: PoolLimits {
                statement_timeout: r.duration("db.timeout-comando")?,
                lock_timeout: r.duration("db.timeout-lock")?,
                idle_in_transaction_timeout: r.duration("db.timeout-transacao-ociosa")?,
                vida_maxima: r.duration("db.vida-maxima")?,
                pooler: r.parse("db.pooler")?,
            },
            db_atraso_maximo_leitura: r.duration("db.atraso-maximo-leitura")?,
            db_espera_reexecucao: r.duration("db.espera-reexecucao")?,
            endereco: r.parse("http.endereco")?,
            prazo_desligamento: r.duration("http.prazo-desligamento")?,
            drenagem: r.duration("http.drenagem")?,
            limites_http: LimitesHttp {
                timeout_cabecalho: r.duration("http.timeout-cabecalho")?,
                timeout_corpo: r.duration("http.timeout-corpo")?,
                timeout_ocioso: r.duration("http.timeout-ocioso")?,
                timeout_requisicao: r.duration("http.timeout-requisicao")?,
                timeout_escrita: r.duration("http.timeout-escrita")?,
                max_conexoes: r.positive("http.max-conexoes")?,
                max_conexoes_por_endereco: r.positive("http.max-conexoes-por-endereco")?,
                prefixo_ipv6: r.prefixo_ipv6("http.prefixo-ipv6")?,
                max_contadores: r.positive("http.max-contadores")?,
            },
            proxies_confiaveis: r.proxies("http.proxies-confiaveis")?,
            cookies_seguros: r.parse("http.cookies-seguros")?,
            login: LoginConfig {
                max_falhas_endereco: r.positive("login.max-falhas-endereco")?,
                max_falhas_usuario: r.positive("login.max-falhas-usuario")?,
                janela: r.duration("login.janela")?,
            },
            checkout: CheckoutConfig {
                max_por_minuto: r.parse("checkout.max-por-minuto")?,
                max_unidades_reservadas: r.parse("checkout.max-unidades-reservadas")?,
                max_unidades_por_produto: r.parse("checkout.max-unidades-por-produto")?,
            },
            log_format: r.choice("log.formato", &[("human", LogFormat::Human), ("json", LogFormat::Json)])?,
            outbox: OutboxConfig {
                intervalo: r.duration("outbox.intervalo")?,
                lote: r.positive("outbox.lote")?,
                timeout: r.duration("outbox.timeout")?,
                backoff_maximo: r.duration("outbox.backoff-maximo")?,
                max_tentativas: r.opt("outbox.max-tentativas", Reader::positive)?,
                prazo_entrega: r.duration("outbox.prazo-entrega")?,
                publicador_embutido: r.parse("outbox.publicador-embutido")?,
                visibilidade: r.duration("outbox.visibilidade")?,
                concorrencia: r.positive("outbox.concorrencia")?,
                lote_max: r.positive("outbox.lote-max")?,
                notify: r.parse("outbox.notify")?,
                retencao: r.duration("outbox.retencao")?,
                transporte: r.choice(
                    "outbox.transporte",
                    &[("lote", Transporte::Lote), ("single", Transporte::Single)],
                )?,
                parte_fresca: r.percent("outbox.parte-fresca")?,
                varredura: r.duration("outbox.varredura")?,
            },
            inbox_retencao: r.duration("inbox.retencao")?,
            audit_atraso: r.duration("audit.atraso")?,
            reserva: ReservaConfig {
                ttl: r.duration("reserva.ttl")?,
                intervalo_expiracao: r.duration("reserva.intervalo-expiracao")?,
                lote_expiracao: r.positive("reserva.lote-expiracao")?,
                expiracao_habilitada: r.parse("reserva.expiracao-habilitada")?,
            },
            tags: TagsConfig {
                worker_url: r.url("tags.worker-url")?,
                worker_token: r.secret("tags.worker-token", 16, false)?,
                timeout: r.duration("tags.timeout")?,
                reclassificacao_habilitada: r.parse("tags.reclassificacao-habilitada")?,
                intervalo_reclassificacao: r.duration("tags.intervalo-reclassificacao")?,
                lote_reclassificacao: r.positive("tags.lote-reclassificacao")?,
            },
            web: WebConfig {
                porta_vitrine: r.parse("web.porta-vitrine")?,
                url_vitrine: r.opt("web.url-vitrine", Reader::url)?,
                porta_painel: r.parse("web.porta-painel")?,
                dir_vitrine: r.opt_string("web.dir-vitrine").map(PathBuf::from),
                dir_painel: r.opt_string("web.dir-painel").map(PathBuf::from),
            },
            publisher_porta_metricas: r.opt("publisher.porta-metricas", Reader::parse)?,
        };
        // Past inbox.retencao the receiver may have forgotten an event and would apply a retry
        // a second time: the retry horizon must end before it.
        if config.outbox.prazo_entrega >= config.inbox_retencao {
            let (v, o) = r.raw("outbox.prazo-entrega")?;
            return Err(r.invalid(
                "outbox.prazo-entrega",
                v,
                o,
                format!(
                    "must be shorter than inbox.retencao ({}): past it the receiver may have forgotten the event and would apply a retry twice",
                    duration::format(config.inbox_retencao)
                ),
            ));
        }
        Ok(config)
    }

    pub fn servico(&self, s: Servico) -> &ServicoConfig {
        match s {
            Servico::Mercado => &self.mercado,
            Servico::Estoque => &self.estoque,
        }
    }

    /// The database of `s`, required by the roles that use it (see the module's doc for which):
    /// no URL has a default, so a server never reaches a development database by omission.
    pub fn db(&self, s: Servico) -> Result<&DbConfig, ConfigError> {
        self.servico(s).db.as_ref().ok_or_else(|| {
            ConfigError(format!(
                "{} is not set: the {s} database URL is required (postgres://USER:PASSWORD@HOST:5432/{s}; \
                 for the development cluster of scripts/pg, `eval \"$(scripts/pg env)\"`)",
                s.var_db_url()
            ))
        })
    }

    /// The service token of `s`, required by the roles that receive or send with it.
    pub fn token_servico(&self, s: Servico) -> Result<&Secret, ConfigError> {
        self.servico(s).token_servico.as_ref().ok_or_else(|| {
            ConfigError(format!(
                "{} is not set: the {s} service token (at least 32 characters) is required; {GENERATE}",
                s.variavel("token-servico")
            ))
        })
    }

    /// The operator login, required by both services.
    pub fn operador(&self) -> Result<Operador, ConfigError> {
        let usuario = self.operador_usuario.clone().ok_or_else(sem_usuario)?;
        let senha = self.operador_senha.clone().ok_or_else(sem_senha)?;
        Ok(Operador { usuario, senha })
    }
}

fn sem_usuario() -> ConfigError {
    ConfigError("OPERADOR_USUARIO is not set: the operator login is required".into())
}

fn sem_senha() -> ConfigError {
    ConfigError(format!(
        "OPERADOR_SENHA is not set: the operator password (at least 8 characters) is required; {GENERATE}"
    ))
}
