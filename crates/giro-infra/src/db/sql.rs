//! The one way business code sends SQL ([`Sql`]): `query`, `query_one`, `query_opt` and
//! `execute` with the SQL text and `&[&dyn Param]`, on a pooled [`Client`](super::Client) or a
//! [`Tx`](super::Tx); neither exposes tokio-postgres' own methods, so a raw `prepare_cached` or
//! a string `query` that would name a server-side statement does not compile outside this module.
//!
//! How a statement goes out depends on the pool's [`Pooler`]:
//! - [`Pooler::Nenhum`] (default, PostgreSQL straight or a session pooler): prepared once per
//!   connection and cached (`prepare_cached`), then bound and executed — the fast path, one round
//!   trip per statement after the first.
//! - [`Pooler::Transacao`] (PgBouncer `pool_mode = transaction`, which hands each transaction a
//!   possibly different server connection): no named statement at all. Each statement is sent as
//!   the unnamed statement, parsed, bound and executed in one round trip (`query_typed`), which
//!   needs every parameter's type up front: [`Param::tipo`], from the Rust type bound (the same
//!   type the prepared path would have inferred and checked).

use std::future::Future;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Error, Row};

pub use crate::config::Pooler;

/// The PostgreSQL type a Rust type is bound as, for the unnamed-statement path; `ARRAY` is the
/// type of an array of it (for `Vec<T>` and `&[T]`).
pub trait PgTipo {
    const TIPO: Type;
    const ARRAY: Type = Type::UNKNOWN;
}

/// A bind parameter: a value tokio-postgres can encode and the type it is sent as.
pub trait Param: ToSql + Sync {
    fn tipo(&self) -> Type;
    /// The value as tokio-postgres takes it (no trait upcasting before Rust 1.86).
    fn como_sql(&self) -> &(dyn ToSql + Sync);
}

impl<T: PgTipo + ToSql + Sync> Param for T {
    fn tipo(&self) -> Type {
        T::TIPO
    }
    fn como_sql(&self) -> &(dyn ToSql + Sync) {
        self
    }
}

macro_rules! pg_tipo {
    ($($t:ty => $tipo:ident, $array:ident;)*) => {
        $(impl PgTipo for $t {
            const TIPO: Type = Type::$tipo;
            const ARRAY: Type = Type::$array;
        })*
    };
}

pg_tipo! {
    bool => BOOL, BOOL_ARRAY;
    i16 => INT2, INT2_ARRAY;
    i32 => INT4, INT4_ARRAY;
    i64 => INT8, INT8_ARRAY;
    f32 => FLOAT4, FLOAT4_ARRAY;
    f64 => FLOAT8, FLOAT8_ARRAY;
    str => TEXT, TEXT_ARRAY;
    String => TEXT, TEXT_ARRAY;
    [u8] => BYTEA, BYTEA_ARRAY;
    uuid::Uuid => UUID, UUID_ARRAY;
    rust_decimal::Decimal => NUMERIC, NUMERIC_ARRAY;
    chrono::DateTime<chrono::Utc> => TIMESTAMPTZ, TIMESTAMPTZ_ARRAY;
    chrono::NaiveDateTime => TIMESTAMP, TIMESTAMP_ARRAY;
    chrono::NaiveDate => DATE, DATE_ARRAY;
    std::net::IpAddr => INET, INET_ARRAY;
    serde_json::Value => JSONB, JSONB_ARRAY;
}

impl<T: PgTipo + ?Sized> PgTipo for &T {
    const TIPO: Type = T::TIPO;
    const ARRAY: Type = T::ARRAY;
}

impl<T: PgTipo> PgTipo for Option<T> {
    const TIPO: Type = T::TIPO;
    const ARRAY: Type = T::ARRAY;
}

impl<T: PgTipo> PgTipo for Vec<T> {
    const TIPO: Type = T::ARRAY;
}

impl<T: PgTipo> PgTipo for [T] {
    const TIPO: Type = T::ARRAY;
}

impl<T> PgTipo for tokio_postgres::types::Json<T> {
    const TIPO: Type = Type::JSONB;
}

/// Sends SQL the way the connection's [`Pooler`] allows ([module docs](self)). Implemented by
/// the pooled [`Client`](super::Client) and by [`Tx`](super::Tx); code that reads on either takes
/// `&impl Sql`.
pub trait Sql: Sync {
    /// Every row of `sql`.
    fn query(&self, sql: &str, params: &[&dyn Param])
        -> impl Future<Output = Result<Vec<Row>, Error>> + Send;
    /// Exactly one row (an error otherwise).
    fn query_one(&self, sql: &str, params: &[&dyn Param]) -> impl Future<Output = Result<Row, Error>> + Send;
    /// At most one row (an error when more).
    fn query_opt(
        &self,
        sql: &str,
        params: &[&dyn Param],
    ) -> impl Future<Output = Result<Option<Row>, Error>> + Send;
    /// The number of rows changed.
    fn execute(&self, sql: &str, params: &[&dyn Param]) -> impl Future<Output = Result<u64, Error>> + Send;
    /// Makes every statement of `sqls` sendable without a round trip of its own: prepared (and
    /// cached) on this connection when statements are prepared, nothing under a transaction
    /// pooler (unnamed statements go out whole). Code that pipelines dependent statements calls
    /// it first, so each is sent on its first poll, in the order they are polled — a statement
    /// still being prepared would be sent after the ones polled behind it.
    fn aquecer(&self, sqls: &[&str]) -> impl Future<Output = Result<(), Error>> + Send;
}

/// What [`Sql`] needs of a connection or transaction: deadpool's statement cache and
/// tokio-postgres' unnamed-statement path. Sealed: outside this crate it cannot be named, so
/// its raw client is out of reach.
pub(crate) use privado::Base;

mod privado {
    use super::*;
    pub trait Base: Sync {
        fn pooler(&self) -> Pooler;
        fn preparar(
            &self,
            sql: &str,
        ) -> impl Future<Output = Result<tokio_postgres::Statement, Error>> + Send;
        fn pg(&self) -> &(impl tokio_postgres::GenericClient + Sync);
        /// The pool's health, where a failed statement is noted; none for a connection of its own.
        fn saude(&self) -> Option<&crate::db::Saude> {
            None
        }
    }
}

/// The parameters as the prepared path takes them.
fn valores<'a>(params: &'a [&'a dyn Param]) -> Vec<&'a (dyn ToSql + Sync)> {
    params.iter().map(|p| p.como_sql()).collect()
}

/// The parameters with their types, as the unnamed-statement path takes them.
fn tipados<'a>(params: &'a [&'a dyn Param]) -> Vec<(&'a (dyn ToSql + Sync), Type)> {
    params.iter().map(|p| (p.como_sql(), p.tipo())).collect()
}

use tokio_postgres::GenericClient as G;

/// `r`, its error first noted in the pool's health ([`Saude::notar_erro`](crate::db::Saude::notar_erro)).
fn notado<T>(b: &impl Base, r: Result<T, Error>) -> Result<T, Error> {
    if let (Err(e), Some(s)) = (&r, b.saude()) {
        s.notar_erro(e);
    }
    r
}

/// The four statement methods of [`Sql`], each `$metodo` with the cached prepared statement or,
/// under a transaction pooler, `$tipado` with the unnamed one; a failure noted in the pool's health.
macro_rules! por_pooler {
    ($($metodo:ident, $tipado:ident -> $linhas:ty;)*) => {
        $(async fn $metodo(&self, sql: &str, params: &[&dyn Param]) -> Result<$linhas, Error> {
            let r = async {
                match self.pooler() {
                    Pooler::Nenhum => {
                        G::$metodo(self.pg(), &self.preparar(sql).await?, &valores(params)).await
                    }
                    Pooler::Transacao => G::$tipado(self.pg(), sql, &tipados(params)).await,
                }
            };
            notado(self, r.await)
        })*
    };
}

impl<B: Base> Sql for B {
    por_pooler! {
        query, query_typed -> Vec<Row>;
        query_one, query_typed_one -> Row;
        query_opt, query_typed_opt -> Option<Row>;
        execute, execute_typed -> u64;
    }

    async fn aquecer(&self, sqls: &[&str]) -> Result<(), Error> {
        if self.pooler() == Pooler::Nenhum {
            for sql in sqls {
                notado(self, self.preparar(sql).await)?;
            }
        }
        Ok(())
    }
}

/// The [`Sql`] methods as inherent methods of `$t`, so calling them needs no import.
macro_rules! inherentes {
    ([$($g:tt)*] $t:ty) => {
        impl<$($g)*> $t {
            /// Every row of `sql` ([`Sql::query`]).
            pub async fn query(&self, sql: &str, params: &[&dyn Param]) -> Result<Vec<Row>, Error> {
                Sql::query(self, sql, params).await
            }
            /// Exactly one row ([`Sql::query_one`]).
            pub async fn query_one(&self, sql: &str, params: &[&dyn Param]) -> Result<Row, Error> {
                Sql::query_one(self, sql, params).await
            }
            /// At most one row ([`Sql::query_opt`]).
            pub async fn query_opt(&self, sql: &str, params: &[&dyn Param]) -> Result<Option<Row>, Error> {
                Sql::query_opt(self, sql, params).await
            }
            /// The number of rows changed ([`Sql::execute`]).
            pub async fn execute(&self, sql: &str, params: &[&dyn Param]) -> Result<u64, Error> {
                Sql::execute(self, sql, params).await
            }
        }
    };
}

inherentes!([] super::Client);
inherentes!(['a, S] super::Tx<'a, S>);
