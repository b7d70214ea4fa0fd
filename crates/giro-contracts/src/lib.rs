//! The four integration events (SPEC §4), one enum: every `match` over it is exhaustive, so an
//! event that is not handled everywhere does not compile.
//!
//! Wire format: no type field in the body — the type travels in the `Evento-Tipo` header and in
//! `outbox_event.tipo` (the simple class name of the original). Fields are camelCase, UUIDs
//! lowercase, instants ISO-8601 UTC with `Z` and 0, 3, 6 or 9 fraction digits printed only when
//! non-zero. Unknown fields are ignored (tolerant reader). Validation messages are those of the
//! original's Bean Validation, in pt-BR, each naming the field. `contracts/<Tipo>.json` pins the
//! format; the tests check each example round-trips.
//!
//! This module is pure data and validation: no database, no HTTP. It implements the outbox's
//! [`giro_outbox::Evento`] (the SKU as the aggregate key), so the writer, relay and receiver carry it.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// `^([0-9]{8}|[0-9]{12,14})$` — GTIN-8/12/13/14, digits only, no check digit (SPEC §3.1).
pub fn sku_valido(sku: &str) -> bool {
    matches!(sku.len(), 8 | 12..=14) && sku.bytes().all(|b| b.is_ascii_digit())
}

pub const SKU_REGEX: &str = "^([0-9]{8}|[0-9]{12,14})$";

/// Bean-Validation-style violations, the original's detail format: each `"<campo> <mensagem>"`
/// in its pt-BR words, reported sorted and joined by `"; "`. The one builder of those messages
/// (the events here, mercado's requests, estoque's lot intake).
#[derive(Debug, Default)]
pub struct Violacoes(Vec<String>);

impl Violacoes {
    pub fn add(&mut self, campo: &str, mensagem: &str) {
        self.0.push(format!("{campo} {mensagem}"));
    }

    /// `@NotNull`: `"<campo> não deve ser nulo"`.
    pub fn nulo(&mut self, campo: &str) {
        self.add(campo, "não deve ser nulo");
    }

    /// `@NotBlank`.
    pub fn em_branco(&mut self, campo: &str, valor: &str) {
        if valor.trim().is_empty() {
            self.add(campo, "não deve estar em branco");
        }
    }

    /// `@Size(max)` in characters.
    pub fn tamanho(&mut self, campo: &str, valor: &str, max: usize) {
        if valor.chars().count() > max {
            self.add(campo, &format!("tamanho deve ser entre 0 e {max}"));
        }
    }

    /// `@Pattern(regexp)`, with the check already made by the caller.
    pub fn padrao(&mut self, campo: &str, valido: bool, regex: &str) {
        if !valido {
            self.add(campo, &format!("deve corresponder a \"{regex}\""));
        }
    }

    /// A SKU (`@NotNull @Pattern(SKU_REGEX)`).
    pub fn sku(&mut self, campo: &str, sku: Option<&str>) {
        match sku {
            None => self.nulo(campo),
            Some(s) => self.padrao(campo, sku_valido(s), SKU_REGEX),
        }
    }

    /// `@Positive` on a present value.
    pub fn positivo(&mut self, campo: &str, n: i32) {
        if n <= 0 {
            self.add(campo, "deve ser maior que 0");
        }
    }

    /// `@NotNull @Positive`.
    pub fn positivo_obrigatorio(&mut self, campo: &str, n: Option<i32>) {
        match n {
            None => self.nulo(campo),
            Some(n) => self.positivo(campo, n),
        }
    }

    /// A message that is already whole (e.g. `"validade …"` from a date check).
    pub fn mensagem(&mut self, texto: String) {
        self.0.push(texto);
    }

    /// The violations, sorted.
    pub fn ordenadas(mut self) -> Vec<String> {
        self.0.sort();
        self.0
    }

    /// `Ok` when none; else the sorted violations joined after `prefixo` (e.g.
    /// `"requisição inválida: "`).
    pub fn resultado(self, prefixo: &str) -> Result<(), String> {
        if self.0.is_empty() {
            return Ok(());
        }
        Err(format!("{prefixo}{}", self.ordenadas().join("; ")))
    }
}

/// Instants on the wire (`ISO_INSTANT`): the outbox's helper, re-exported where the events use it.
pub use giro_outbox::instante;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReposicaoSolicitada {
    pub event_id: Uuid,
    pub sku: String,
    pub qtd_faltante: i32,
    #[serde(with = "instante")]
    pub ocorrido_em: DateTime<Utc>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReposicaoEnviada {
    pub event_id: Uuid,
    pub correlation_id: Uuid,
    pub sku: String,
    pub qtd: i32,
    /// The lot code (`lote.codigo_lote`).
    pub lote: String,
    #[serde(with = "instante")]
    pub ocorrido_em: DateTime<Utc>,
}

giro_infra::nomes! {
    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    pub enum MotivoNegacao {
        SemSaldo = "SEM_SALDO",
        SkuDesconhecido = "SKU_DESCONHECIDO",
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReposicaoNegada {
    pub event_id: Uuid,
    pub correlation_id: Uuid,
    pub sku: String,
    pub motivo: MotivoNegacao,
    #[serde(with = "instante")]
    pub ocorrido_em: DateTime<Utc>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProdutoClassificado {
    pub event_id: Uuid,
    pub sku: String,
    pub tags: Vec<String>,
    pub categoria: String,
    #[serde(with = "instante")]
    pub ocorrido_em: DateTime<Utc>,
}

/// Serialised as its body alone (no type field: see the module's doc).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum EventoIntegracao {
    ReposicaoSolicitada(ReposicaoSolicitada),
    ReposicaoEnviada(ReposicaoEnviada),
    ReposicaoNegada(ReposicaoNegada),
    ProdutoClassificado(ProdutoClassificado),
}

/// Why a received body is not an event; each maps to a 400 with the spec's detail.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ErroContrato {
    #[error("tipo de evento não aceito: {0}")]
    TipoNaoAceito(String),
    #[error("payload ilegível para {tipo}: {mensagem}")]
    Ilegivel { tipo: String, mensagem: String },
    #[error("{tipo} inválido: {}", violacoes.join("; "))]
    Invalido { tipo: String, violacoes: Vec<String> },
}

giro_infra::nomes! {
    /// The four event types by name: the simple class name of the original, in the `Evento-Tipo`
    /// header and `outbox_event.tipo`. Spelled here only; everything else names the variant.
    pub enum TipoEvento {
        ReposicaoSolicitada = "ReposicaoSolicitada",
        ReposicaoEnviada = "ReposicaoEnviada",
        ReposicaoNegada = "ReposicaoNegada",
        ProdutoClassificado = "ProdutoClassificado",
    }
}

pub const TIPOS: [&str; 4] = TipoEvento::NOMES;

impl EventoIntegracao {
    /// The event's type ([`TipoEvento`]).
    pub fn tipo_evento(&self) -> TipoEvento {
        match self {
            EventoIntegracao::ReposicaoSolicitada(_) => TipoEvento::ReposicaoSolicitada,
            EventoIntegracao::ReposicaoEnviada(_) => TipoEvento::ReposicaoEnviada,
            EventoIntegracao::ReposicaoNegada(_) => TipoEvento::ReposicaoNegada,
            EventoIntegracao::ProdutoClassificado(_) => TipoEvento::ProdutoClassificado,
        }
    }

    /// The simple class name: `Evento-Tipo` header and `outbox_event.tipo`.
    pub fn tipo(&self) -> &'static str {
        self.tipo_evento().nome()
    }

    /// The fields every event has: its id, its instant, its SKU.
    fn comuns(&self) -> (Uuid, DateTime<Utc>, &str) {
        match self {
            EventoIntegracao::ReposicaoSolicitada(e) => (e.event_id, e.ocorrido_em, &e.sku),
            EventoIntegracao::ReposicaoEnviada(e) => (e.event_id, e.ocorrido_em, &e.sku),
            EventoIntegracao::ReposicaoNegada(e) => (e.event_id, e.ocorrido_em, &e.sku),
            EventoIntegracao::ProdutoClassificado(e) => (e.event_id, e.ocorrido_em, &e.sku),
        }
    }

    pub fn event_id(&self) -> Uuid {
        self.comuns().0
    }

    pub fn ocorrido_em(&self) -> DateTime<Utc> {
        self.comuns().1
    }

    pub fn sku(&self) -> &str {
        self.comuns().2
    }

    /// The body as JSON (no type field).
    pub fn to_json(&self) -> serde_json::Value {
        // Serialising these plain structs cannot fail (no maps with non-string keys).
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }

    /// Parses and validates a body of type `tipo` (any of the four; which ones a service accepts
    /// is the receiver's business).
    pub fn ler(tipo: &str, body: &[u8]) -> Result<EventoIntegracao, ErroContrato> {
        fn de<T: serde::de::DeserializeOwned>(tipo: &str, body: &[u8]) -> Result<T, ErroContrato> {
            let d = &mut serde_json::Deserializer::from_slice(body);
            serde_path_to_error::deserialize(d).map_err(|e| {
                let path = e.path().to_string();
                let inner = giro_infra::serde_pt::traduzir(&e.into_inner().to_string());
                let mensagem =
                    if path == "." || path.is_empty() { inner } else { format!("{path}: {inner}") };
                ErroContrato::Ilegivel { tipo: tipo.to_string(), mensagem }
            })
        }
        let evento = match TipoEvento::de_nome(tipo) {
            Some(TipoEvento::ReposicaoSolicitada) => EventoIntegracao::ReposicaoSolicitada(de(tipo, body)?),
            Some(TipoEvento::ReposicaoEnviada) => EventoIntegracao::ReposicaoEnviada(de(tipo, body)?),
            Some(TipoEvento::ReposicaoNegada) => EventoIntegracao::ReposicaoNegada(de(tipo, body)?),
            Some(TipoEvento::ProdutoClassificado) => EventoIntegracao::ProdutoClassificado(de(tipo, body)?),
            None => return Err(ErroContrato::TipoNaoAceito(tipo.to_string())),
        };
        let violacoes = evento.violacoes();
        if violacoes.is_empty() {
            Ok(evento)
        } else {
            Err(ErroContrato::Invalido { tipo: tipo.to_string(), violacoes })
        }
    }

    /// Violations as `"<campo> <mensagem>"`, sorted (the original's detail format).
    pub fn violacoes(&self) -> Vec<String> {
        let mut v = Violacoes::default();
        let sem_nul = |v: &mut Violacoes, campo: &str, s: &str| {
            if s.contains('\0') {
                v.add(campo, "não deve conter o caractere NUL");
            }
        };
        sem_nul(&mut v, "sku", self.sku());
        v.sku("sku", Some(self.sku()));
        match self {
            EventoIntegracao::ReposicaoSolicitada(e) => v.positivo("qtdFaltante", e.qtd_faltante),
            EventoIntegracao::ReposicaoEnviada(e) => {
                sem_nul(&mut v, "lote", &e.lote);
                v.positivo("qtd", e.qtd);
                v.em_branco("lote", &e.lote);
            }
            EventoIntegracao::ReposicaoNegada(_) => {}
            EventoIntegracao::ProdutoClassificado(e) => {
                if e.tags.is_empty() {
                    v.add("tags", "não deve estar vazio");
                }
                if e.tags.len() > 8 {
                    v.add("tags", "tamanho deve ser entre 0 e 8");
                }
                for (i, t) in e.tags.iter().enumerate() {
                    sem_nul(&mut v, &format!("tags[{i}]"), t);
                    v.em_branco(&format!("tags[{i}]"), t);
                    v.tamanho(&format!("tags[{i}]"), t, 30);
                }
                sem_nul(&mut v, "categoria", &e.categoria);
                v.em_branco("categoria", &e.categoria);
                v.tamanho("categoria", &e.categoria, 30);
            }
        }
        v.ordenadas()
    }
}

/// The outbox's view of the four events: the SKU is the aggregate key, and a dead-lettered
/// `ReposicaoSolicitada` keeps that SKU's restock request open.
impl giro_outbox::Evento for EventoIntegracao {
    type Erro = ErroContrato;
    const TIPOS: &'static [&'static str] = &TIPOS;
    const CAMINHO_CHAVE: &'static [&'static str] = &["sku"];
    const NOME_CHAVE: &'static str = "SKU";

    fn tipo(&self) -> &'static str {
        EventoIntegracao::tipo(self)
    }

    fn event_id(&self) -> Uuid {
        EventoIntegracao::event_id(self)
    }

    fn ocorrido_em(&self) -> DateTime<Utc> {
        EventoIntegracao::ocorrido_em(self)
    }

    fn payload(&self) -> serde_json::Value {
        self.to_json()
    }

    fn chave(&self) -> &str {
        self.sku()
    }

    /// The contract ([`EventoIntegracao::ler`]). `ocorridoEm` is information, not a verdict
    /// (SPEC §4.7, issue 30): any instant RFC 3339 can spell is accepted, however far from the
    /// receiver's clock — a sender whose clock drifted would otherwise have its events refused for
    /// good. What needs an order uses the receiver's clock (`classificado_em` is clamped to it).
    fn ler(tipo: &str, corpo: &[u8]) -> Result<Self, ErroContrato> {
        EventoIntegracao::ler(tipo, corpo)
    }

    fn bloqueio(tipo: &str, chave: &str) -> Option<String> {
        (TipoEvento::de_nome(tipo) == Some(TipoEvento::ReposicaoSolicitada))
            .then(|| format!("restocks of SKU {chave} wait"))
    }

    /// The same rule as [`bloqueio`](giro_outbox::Evento::bloqueio) (one condition, two
    /// languages: the CLI speaks English, the console pt-BR).
    fn bloqueio_para_operador(tipo: &str, chave: &str) -> Option<String> {
        Self::bloqueio(tipo, chave).map(|_| {
            format!(
                "As reposições do SKU {chave} esperam: o mercado não pede outra enquanto este pedido \
                 não for reenviado, refeito ou descartado."
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dead_letter_blocks_the_same_in_the_cli_and_the_console() {
        use giro_outbox::Evento as _;
        let sku = "7894900011517";
        for tipo in ["ReposicaoSolicitada", "ReposicaoEnviada", "ReposicaoNegada", "ProdutoClassificado"] {
            assert_eq!(
                EventoIntegracao::bloqueio(tipo, sku).is_some(),
                EventoIntegracao::bloqueio_para_operador(tipo, sku).is_some(),
                "{tipo}"
            );
        }
        assert_eq!(
            EventoIntegracao::bloqueio_para_operador("ReposicaoSolicitada", sku).unwrap(),
            "As reposições do SKU 7894900011517 esperam: o mercado não pede outra enquanto este pedido não for \
             reenviado, refeito ou descartado."
        );
    }

    #[test]
    fn sku_follows_the_gtin_rule() {
        for ok in ["12345678", "123456789012", "1234567890123", "12345678901234"] {
            assert!(sku_valido(ok), "{ok}");
        }
        for bad in ["1234567", "123456789", "12345678901", "123456789012345", "1234567a", ""] {
            assert!(!sku_valido(bad), "{bad}");
        }
    }

    #[test]
    fn unknown_type_and_bad_bodies_have_the_spec_messages() {
        assert_eq!(
            EventoIntegracao::ler("Pedido", b"{}").unwrap_err().to_string(),
            "tipo de evento não aceito: Pedido"
        );
        let e = EventoIntegracao::ler("ReposicaoSolicitada", b"{nope").unwrap_err().to_string();
        assert!(e.starts_with("payload ilegível para ReposicaoSolicitada: "), "{e}");
        let e = EventoIntegracao::ler(
            "ReposicaoSolicitada",
            br#"{"eventId":"0b6c3f1e-8a4f-4c55-9d0a-1f2e3d4c5b6a","sku":"123","qtdFaltante":0,"ocorridoEm":"2026-09-25T12:00:00Z"}"#,
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            e,
            "ReposicaoSolicitada inválido: qtdFaltante deve ser maior que 0; sku deve corresponder a \"^([0-9]{8}|[0-9]{12,14})$\""
        );
        let e = EventoIntegracao::ler(
            "ReposicaoEnviada",
            br#"{"eventId":"0b6c3f1e-8a4f-4c55-9d0a-1f2e3d4c5b6a"}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("correlationId"), "the missing field is named: {e}");
        let e = EventoIntegracao::ler(
            "ReposicaoSolicitada",
            br#"{"eventId":"0b6c3f1e-8a4f-4c55-9d0a-1f2e3d4c5b6a","sku":"12345678","qtdFaltante":null,"ocorridoEm":"2026-09-25T12:00:00Z"}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("qtdFaltante"), "a null int names the field: {e}");
        let e = EventoIntegracao::ler(
            "ReposicaoNegada",
            br#"{"eventId":"0b6c3f1e-8a4f-4c55-9d0a-1f2e3d4c5b6a","correlationId":"0b6c3f1e-8a4f-4c55-9d0a-1f2e3d4c5b6a","sku":"12345678","motivo":"TALVEZ","ocorridoEm":"2026-09-25T12:00:00Z"}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("motivo"), "{e}");
    }
}
