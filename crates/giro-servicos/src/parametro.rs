//! Query parameters read by hand (each a string), so a bad one is named in the 400, worded the
//! same on every route of both services.

/// Stripped; blank means absent.
pub fn presente(v: Option<&str>) -> Option<&str> {
    v.map(str::trim).filter(|s| !s.is_empty())
}

/// An integer from 1 to `max`, `padrao` when absent or blank; else the 400's detail.
pub fn inteiro(nome: &str, v: Option<&str>, padrao: i64, max: i64) -> Result<i64, String> {
    match presente(v) {
        None => Ok(padrao),
        Some(s) => s.parse::<i64>().ok().filter(|n| (1..=max).contains(n)).ok_or_else(|| {
            format!("Parâmetro inválido: {nome} deve ser um número inteiro de 1 a {max}: {s}")
        }),
    }
}

/// One page of a list.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Pagina<T> {
    pub itens: Vec<T>,
    /// Rows that match the filter, over every page.
    pub total: i64,
    pub pagina: i64,
    pub tamanho: i64,
}
