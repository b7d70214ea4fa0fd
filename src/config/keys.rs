//! Every configuration key: its TOML name, its environment variable and whether it is a secret.
//!
//! The environment names are the original's (`MERCADO_DB_URL`, `ESTOQUE_TOKEN_SERVICO`, …) and
//! SPEC §1's `GIRO_*` tunables, so one `.env` serves both implementations. `config/giro.toml`
//! documents each key with its default; a test checks the two lists agree.

pub struct Key {
    /// Dotted TOML name, e.g. `outbox.intervalo`.
    pub name: &'static str,
    /// Environment variable that sets it.
    pub env: &'static str,
    /// Never printed: masked by `giro config`, redacted in `Debug`.
    pub secret: bool,
}

const fn k(name: &'static str, env: &'static str) -> Key {
    Key { name, env, secret: false }
}

const fn s(name: &'static str, env: &'static str) -> Key {
    Key { name, env, secret: true }
}

pub const KEYS: &[Key] = &[
    k("mercado.db-url", "MERCADO_DB_URL"),
    k("mercado.db-usuario", "MERCADO_DB_USER"),
    s("mercado.db-senha", "MERCADO_DB_PASSWORD"),
    k("mercado.porta", "MERCADO_PORTA"),
    k("mercado.eventos-url", "MERCADO_EVENTOS_URL"),
    s("mercado.token-servico", "MERCADO_TOKEN_SERVICO"),
    k("estoque.db-url", "ESTOQUE_DB_URL"),
    k("estoque.db-usuario", "ESTOQUE_DB_USER"),
    s("estoque.db-senha", "ESTOQUE_DB_PASSWORD"),
    k("estoque.porta", "ESTOQUE_PORTA"),
    k("estoque.eventos-url", "ESTOQUE_EVENTOS_URL"),
    s("estoque.token-servico", "ESTOQUE_TOKEN_SERVICO"),
    k("estoque.url", "ESTOQUE_URL"),
    k("estoque.timeout", "GIRO_ESTOQUE_TIMEOUT"),
    k("operador.usuario", "OPERADOR_USUARIO"),
    s("operador.senha", "OPERADOR_SENHA"),
    k("db.pool-max", "GIRO_DB_POOL_MAX"),
    k("db.timeout", "GIRO_DB_TIMEOUT"),
    k("http.endereco", "GIRO_HTTP_ENDERECO"),
    k("http.prazo-desligamento", "GIRO_HTTP_PRAZO_DESLIGAMENTO"),
    k("log.formato", "GIRO_LOG_FORMAT"),
    k("outbox.intervalo", "GIRO_OUTBOX_INTERVALO"),
    k("outbox.lote", "GIRO_OUTBOX_LOTE"),
    k("outbox.timeout", "GIRO_OUTBOX_TIMEOUT"),
    k("outbox.backoff-maximo", "GIRO_OUTBOX_BACKOFF_MAXIMO"),
    k("outbox.max-tentativas", "GIRO_OUTBOX_MAX_TENTATIVAS"),
    k("outbox.publicador-embutido", "GIRO_OUTBOX_PUBLICADOR_EMBUTIDO"),
    k("outbox.visibilidade", "GIRO_OUTBOX_VISIBILIDADE"),
    k("outbox.concorrencia", "GIRO_OUTBOX_CONCORRENCIA"),
    k("outbox.lote-max", "GIRO_OUTBOX_LOTE_MAX"),
    k("outbox.notify", "GIRO_OUTBOX_NOTIFY"),
    k("outbox.retencao", "GIRO_OUTBOX_RETENCAO"),
    k("outbox.transporte", "GIRO_OUTBOX_TRANSPORTE"),
    k("outbox.reenviar", "GIRO_OUTBOX_REENVIAR"),
    k("inbox.retencao", "GIRO_INBOX_RETENCAO"),
    k("reserva.ttl", "GIRO_RESERVA_TTL"),
    k("reserva.intervalo-expiracao", "GIRO_RESERVA_INTERVALO"),
    k("reserva.lote-expiracao", "GIRO_RESERVA_LOTE"),
    k("reserva.expiracao-habilitada", "GIRO_RESERVA_EXPIRACAO_HABILITADA"),
    k("tags.worker-url", "TAG_WORKER_URL"),
    s("tags.worker-token", "TAG_WORKER_TOKEN"),
    k("tags.timeout", "GIRO_TAGS_TIMEOUT"),
    k("tags.reclassificacao-habilitada", "GIRO_TAGS_RECLASSIFICACAO_HABILITADA"),
    k("tags.intervalo-reclassificacao", "GIRO_TAGS_INTERVALO"),
    k("tags.lote-reclassificacao", "GIRO_TAGS_LOTE"),
    k("web.porta-vitrine", "GIRO_WEB_PORTA_VITRINE"),
    k("web.porta-painel", "GIRO_WEB_PORTA_PAINEL"),
    k("web.dir-vitrine", "GIRO_WEB_DIR_VITRINE"),
    k("web.dir-painel", "GIRO_WEB_DIR_PAINEL"),
];

pub fn by_name(name: &str) -> Option<&'static Key> {
    KEYS.iter().find(|k| k.name == name)
}
