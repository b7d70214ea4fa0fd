//! An event's state in `outbox_event.status`, and its one mapping to the database: the column's
//! text is read and written here only (and in the SQL text of [`store`](crate::store), which
//! filters by it), so no other code compares status strings.
//!
//! `PENDING` → `SENT` on delivery, or → `FAILED` (a dead letter) on a refusal or the delivery
//! deadline; `giro outbox retry` brings a `FAILED` (or `SENT`) row back to `PENDING`.

use tokio_postgres::types::{private::BytesMut, to_sql_checked, FromSql, IsNull, ToSql, Type};

giro_infra::nomes! {
    #[derive(PartialOrd, Ord, serde::Serialize)]
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    pub enum Status {
        /// Waiting for its (next) attempt, or leased to a publisher now.
        Pending = "PENDING",
        /// Delivered: the receiver answered 2xx.
        Sent = "SENT",
        /// A dead letter: kept until an operator retries or discards it.
        Failed = "FAILED",
    }
}

impl Status {
    /// The status spelled `s`, in any case (`failed`, `FAILED`).
    pub fn parse(s: &str) -> Option<Status> {
        Status::TODOS.into_iter().find(|v| v.nome().eq_ignore_ascii_case(s))
    }
}

impl<'a> FromSql<'a> for Status {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        let s = <&str as FromSql>::from_sql(ty, raw)?;
        // Only a value the table's CHECK constraint (`ck_outbox_event_status`) does not allow.
        Ok(Status::parse(s).ok_or_else(|| format!("unknown outbox status {s:?}"))?)
    }

    fn accepts(ty: &Type) -> bool {
        <&str as FromSql>::accepts(ty)
    }
}

/// Bound as text (the column is `VARCHAR(10)`) where no statement is prepared ([`giro_infra::db::Sql`]).
impl giro_infra::db::PgTipo for Status {
    const TIPO: Type = Type::TEXT;
}

impl ToSql for Status {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        self.nome().to_sql(ty, out)
    }

    fn accepts(ty: &Type) -> bool {
        <&str as ToSql>::accepts(ty)
    }

    to_sql_checked!();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_status_reads_back_from_its_text_in_any_case() {
        for s in Status::TODOS {
            assert_eq!(Status::parse(s.nome()), Some(s));
            assert_eq!(Status::parse(&s.nome().to_ascii_lowercase()), Some(s));
        }
        assert_eq!(Status::parse("LOST"), None);
        assert_eq!(format!("{:<7}|", Status::Sent), "SENT   |");
    }
}
