//! How a database error becomes an answer, the part both services share (issue 13).
//!
//! Each service keeps, beside its error type, a table from constraint name to what the refusal
//! means for the caller ([`Restricao`]); [`classificar`] looks the error up there. A data
//! exception (SQLSTATE class 22: a value out of a column's range, a byte the encoding refuses)
//! is input the checks before SQL missed, answered 400; anything else is a 500 whose cause is
//! logged with its SQLSTATE, message and constraint ([`registrar`]), never sent.

use tokio_postgres::error::DbError;

/// What a constraint violation means for the caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Restricao {
    /// A race or a repeated key: 409 with the service's conflict message.
    Conflito,
    /// The input broke a rule the database checks last: 400 with this message.
    Invalido(&'static str),
}

/// A database error, sorted.
#[derive(Debug, PartialEq, Eq)]
pub enum Classe {
    /// A constraint of the service's table (its name known).
    Restricao(Restricao),
    /// SQLSTATE class 22: a value the column cannot hold.
    Dado,
    /// Anything else (an unknown constraint included): a 500 after [`registrar`].
    Outro,
}

/// Sorts `e` with the service's constraint `tabela`.
pub fn classificar(e: &tokio_postgres::Error, tabela: &[(&str, Restricao)]) -> Classe {
    let Some(db) = e.as_db_error() else { return Classe::Outro };
    let code = db.code().code();
    if code.starts_with("23") {
        if let Some(nome) = db.constraint() {
            if let Some((_, r)) = tabela.iter().find(|(n, _)| *n == nome) {
                return Classe::Restricao(*r);
            }
        }
        return Classe::Outro;
    }
    if code.starts_with("22") {
        return Classe::Dado;
    }
    Classe::Outro
}

/// The detail of a 400 for a data exception: no internals, the rule in words.
pub const DADO_INVALIDO: &str = "valor fora do intervalo aceito ou com caractere não permitido";

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

fn log_db(db: &DbError, o_que: &str, aviso: bool) {
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
    e.chain().find_map(|c| c.downcast_ref::<tokio_postgres::Error>())
}
