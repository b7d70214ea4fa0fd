//! The one policy that turns a database error into an answer, for every route (issue 24): the
//! two services' handlers, the login, the event console, the `/eventos` receiver.
//!
//! | the error | answer |
//! |---|---|
//! | no connection from the pool, a lost or stale session (class 08, a server shutting down, a read-only session), a lock or statement timeout, a deadlock or serialization failure, resource exhaustion (class 53: disk full, out of memory, too many connections) ([`giro_infra::db::trouble`]) | 503 "tente novamente" with `Retry-After` ([`Problem::unavailable`]) |
//! | a constraint named in the service's table ([`Restricao`]) | 409 (a race) or 400 (a rule) |
//! | SQLSTATE class 22 (a value a column cannot hold: input the checks before SQL missed) | 400 |
//! | anything else, an unknown constraint included | 500, its SQLSTATE, message and constraint logged, never sent |
//!
//! A service states its table once in a [`Politica`]; code that knows no role (the console,
//! the receiver) uses [`Politica::sem_restricoes`].
//!
//! Answering marks the request's attempt when the failure lost its session
//! ([`reexecucao::marcar_se_sessao_perdida`]), so the route layer ([`crate::reexecucao`]) may run
//! it again; classifying alone marks nothing.

use axum::http::StatusCode;
use tokio_postgres::error::DbError as PgDbError;

use crate::Problem;
use giro_infra::db::{self, reexecucao, DbError, Falha};

/// What a constraint violation means for the caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Restricao {
    /// A race or a repeated key: 409 with the service's conflict message.
    Conflito,
    /// The input broke a rule the database checks last: 400 with this message.
    Invalido(&'static str),
}

/// A database error, sorted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Classe {
    /// The database, not the request, is at fault (see the module doc): 503, try again.
    Indisponivel,
    /// A constraint of the service's table (its name known).
    Restricao(Restricao),
    /// SQLSTATE class 22: a value the column cannot hold.
    Dado,
    /// Anything else (an unknown constraint included): a 500 after [`registrar`].
    Outro,
}

/// Sorts `e` with the service's constraint `tabela`.
pub fn classificar(e: &tokio_postgres::Error, tabela: &[(&str, Restricao)]) -> Classe {
    if db::trouble(e).is_some() {
        return Classe::Indisponivel;
    }
    let Some(pg) = e.as_db_error() else { return Classe::Outro };
    let code = pg.code().code();
    if code.starts_with("22") {
        return Classe::Dado;
    }
    let listada = pg.constraint().and_then(|nome| tabela.iter().find(|(n, _)| *n == nome));
    listada.filter(|_| code.starts_with("23")).map_or(Classe::Outro, |(_, r)| Classe::Restricao(*r))
}

/// The detail of a 400 for a data exception: no internals, the rule in words.
pub const DADO_INVALIDO: &str = "valor fora do intervalo aceito ou com caractere não permitido";

/// The database-error policy of one service (or of role-free code): its constraint table, the
/// detail of its 409, and the name its log lines carry.
#[derive(Clone, Copy, Debug)]
pub struct Politica {
    /// Who answers, in the log lines (`mercado`, `estoque`, `event console`).
    pub origem: &'static str,
    /// The service's constraints by name; any other is a 500.
    pub restricoes: &'static [(&'static str, Restricao)],
    /// The detail of a 409 for a [`Restricao::Conflito`].
    pub conflito: &'static str,
}

impl Politica {
    /// The policy of code that knows no service's constraints.
    pub const fn sem_restricoes(origem: &'static str) -> Politica {
        Politica { origem, restricoes: &[], conflito: "conflito; tente novamente" }
    }

    /// What `e` refuses of the input — a listed constraint, or a value no column holds
    /// ([`DADO_INVALIDO`]) — logged as a refusal; `None` when the database or a bug is at fault
    /// (answered by [`responder`](Self::responder), which logs it then).
    pub fn recusa(&self, e: &tokio_postgres::Error) -> Option<Restricao> {
        let r = match self.classificar(e) {
            Classe::Restricao(r) => r,
            Classe::Dado => Restricao::Invalido(DADO_INVALIDO),
            Classe::Indisponivel | Classe::Outro => return None,
        };
        registrar_recusa(e, self.origem);
        Some(r)
    }

    pub fn classificar(&self, e: &tokio_postgres::Error) -> Classe {
        classificar(e, self.restricoes)
    }

    /// The class of the first database error in `e`'s chain, `None` when it holds none (the
    /// failure is not the database's); it marks the attempt as [`Politica::responder_cadeia`]
    /// does, for callers that answer it themselves.
    pub fn classificar_cadeia(&self, e: &anyhow::Error) -> Option<Classe> {
        let f = db::na_cadeia(e)?;
        reexecucao::marcar_se_sessao_perdida(f);
        Some(match f {
            Falha::Pool(_) => Classe::Indisponivel,
            Falha::Pg(pg) => self.classificar(pg),
        })
    }

    /// The answer for class `c` (nothing logged).
    pub fn problema(&self, c: Classe) -> Problem {
        match c {
            Classe::Indisponivel => Problem::unavailable(),
            Classe::Restricao(Restricao::Conflito) => Problem::new(StatusCode::CONFLICT, self.conflito),
            Classe::Restricao(Restricao::Invalido(m)) => Problem::bad_request(m),
            Classe::Dado => Problem::bad_request(DADO_INVALIDO),
            Classe::Outro => Problem::internal(),
        }
    }

    /// Classifies, logs (a 500 at `error` with SQLSTATE, message and constraint; the rest at
    /// `warn`) and answers a driver error.
    pub fn responder_pg(&self, e: &tokio_postgres::Error) -> Problem {
        self.responder_falha(Falha::Pg(e), &e.to_string())
    }

    /// [`Politica::responder_pg`] for a [`DbError`]: a pool that gives no connection is 503.
    pub fn responder(&self, e: &DbError) -> Problem {
        match e {
            DbError::Pool(p) => self.responder_falha(Falha::Pool(p), &p.to_string()),
            DbError::Pg(pg) => self.responder_pg(pg),
        }
    }

    /// Classifies, logs and answers any error: by the first database error in its chain, or —
    /// when it holds none — a 500 with the whole chain logged.
    pub fn responder_cadeia(&self, e: &anyhow::Error) -> Problem {
        let texto = format!("{e:#}");
        match db::na_cadeia(e) {
            Some(f) => self.responder_falha(f, &texto),
            None => {
                tracing::error!(origem = self.origem, error = %texto, "request failed");
                Problem::internal()
            }
        }
    }

    /// Marks the attempt when `f` lost its session, then classifies, logs (`texto`) and answers it.
    fn responder_falha(&self, f: Falha<'_>, texto: &str) -> Problem {
        reexecucao::marcar_se_sessao_perdida(f);
        let (pg, c) = match f {
            Falha::Pool(_) => (None, Classe::Indisponivel),
            Falha::Pg(pg) => (Some(pg), self.classificar(pg)),
        };
        self.registrar(pg, texto, c);
        self.problema(c)
    }

    fn registrar(&self, pg: Option<&tokio_postgres::Error>, texto: &str, c: Classe) {
        let o_que = self.origem;
        match (c, pg) {
            (Classe::Indisponivel, _) => {
                tracing::warn!(origem = o_que, error = %texto, "database unavailable")
            }
            (Classe::Outro, Some(pg)) => registrar(pg, o_que),
            (_, Some(pg)) => registrar_recusa(pg, o_que),
            (_, None) => tracing::error!(origem = o_que, error = %texto, "database error"),
        }
    }
}

/// A command's final error (`giro outbox …`, the console's logic on a terminal): when the policy
/// would answer 503, it says first that the database is unavailable, as the console does.
pub fn para_comando(e: anyhow::Error) -> anyhow::Error {
    match Politica::sem_restricoes("command").classificar_cadeia(&e) {
        Some(Classe::Indisponivel) => e.context("the database is unavailable; try again"),
        _ => e,
    }
}

/// Logs a database error with its SQLSTATE, message and constraint (what an operator needs to
/// act), at `error` level; `o_que` says what was being done.
pub fn registrar(e: &tokio_postgres::Error, o_que: &str) {
    match e.as_db_error() {
        Some(db) => log_db(db, o_que, false),
        None => tracing::error!(error = %e, "{o_que}: database error"),
    }
}

/// Like [`registrar`], at `warn` (an input the database refused, answered 4xx).
pub fn registrar_recusa(e: &tokio_postgres::Error, o_que: &str) {
    match e.as_db_error() {
        Some(db) => log_db(db, o_que, true),
        None => tracing::warn!(error = %e, "{o_que}: database error"),
    }
}

fn log_db(db: &PgDbError, o_que: &str, aviso: bool) {
    let (sqlstate, message) = (db.code().code(), db.message());
    let constraint = db.constraint().unwrap_or("-");
    if aviso {
        tracing::warn!(sqlstate, message, constraint, "{o_que}: the database refused the input");
    } else {
        tracing::error!(
            sqlstate,
            message,
            constraint,
            detail = db.detail().unwrap_or("-"),
            "{o_que}: database error"
        );
    }
}

/// The first `tokio_postgres::Error` in an `anyhow` chain, if any.
pub fn no_erro(e: &anyhow::Error) -> Option<&tokio_postgres::Error> {
    match db::na_cadeia(e)? {
        Falha::Pg(pg) => Some(pg),
        Falha::Pool(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABELA: &[(&str, Restricao)] = &[("uk_x", Restricao::Conflito)];
    const POLITICA: Politica =
        Politica { origem: "teste", restricoes: TABELA, conflito: "conflito de teste" };

    fn pool_esgotado() -> DbError {
        DbError::Pool(deadpool_postgres::PoolError::Timeout(deadpool_postgres::TimeoutType::Wait))
    }

    #[test]
    fn each_class_has_its_answer() {
        let status = |c| POLITICA.problema(c).status.as_u16();
        assert_eq!(status(Classe::Indisponivel), 503);
        assert_eq!(status(Classe::Restricao(Restricao::Conflito)), 409);
        assert_eq!(status(Classe::Restricao(Restricao::Invalido("x"))), 400);
        assert_eq!(status(Classe::Dado), 400);
        assert_eq!(status(Classe::Outro), 500);
        assert_eq!(
            POLITICA.problema(Classe::Restricao(Restricao::Conflito)).detail.as_deref(),
            Some("conflito de teste")
        );
        assert_eq!(POLITICA.problema(Classe::Indisponivel).detail, Problem::unavailable().detail);
    }

    #[test]
    fn a_pool_that_gives_no_connection_is_503_however_deep_in_the_chain() {
        assert_eq!(POLITICA.responder(&pool_esgotado()).status.as_u16(), 503);
        let e = anyhow::Error::from(pool_esgotado()).context("lendo o outbox").context("console");
        assert_eq!(POLITICA.classificar_cadeia(&e), Some(Classe::Indisponivel));
        assert_eq!(POLITICA.responder_cadeia(&e).status.as_u16(), 503);
        let p = anyhow::Error::from(deadpool_postgres::PoolError::Closed);
        assert_eq!(POLITICA.classificar_cadeia(&p), Some(Classe::Indisponivel));
    }

    #[test]
    fn an_error_that_is_not_the_database_s_is_none_of_its_classes_and_a_500() {
        let e = anyhow::anyhow!("event is not a FAILED event of this outbox");
        assert_eq!(POLITICA.classificar_cadeia(&e), None);
        assert_eq!(POLITICA.responder_cadeia(&e).status.as_u16(), 500);
        assert!(no_erro(&e).is_none());
    }
}
