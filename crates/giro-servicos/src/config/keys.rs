//! Every configuration key: its TOML name, its environment variable and whether it is a secret.
//!
//! One rule names the environment variables: `GIRO_` + the key in capitals, `.` and `-` as `_`
//! (`sessao.intervalo-limpeza` → `GIRO_SESSAO_INTERVALO_LIMPEZA`). The exceptions are the original
//! Java Girô's own variables (`MERCADO_DB_URL`, `ESTOQUE_TOKEN_SERVICO`, `OPERADOR_SENHA`,
//! `TAG_WORKER_URL`, …), which stay the documented names so one `.env` serves both
//! implementations. Every key also answers to its derived name, and names used before the rule
//! (`GIRO_SESSAO_INTERVALO`, `GIRO_LOG_FORMAT`, …) are still read, as [`Key::legacy`].
//! When several are set, the documented name wins, then the derived one, then the old one.
//! `config/giro.toml` documents each key with its default; a test checks the two lists agree.

pub struct Key {
    /// Dotted TOML name, e.g. `outbox.intervalo`.
    pub name: &'static str,
    /// Environment variable that sets it.
    pub env: &'static str,
    /// Never printed: masked by `giro config`, redacted in `Debug`.
    pub secret: bool,
    /// The name this key's variable had before the naming rule; still read.
    pub legacy: Option<&'static str>,
}

const fn k(name: &'static str, env: &'static str) -> Key {
    Key { name, env, secret: false, legacy: None }
}

const fn s(name: &'static str, env: &'static str) -> Key {
    Key { name, env, secret: true, legacy: None }
}

/// A key renamed by the rule: `env` the derived name, `legacy` the old one.
const fn r(name: &'static str, env: &'static str, legacy: &'static str) -> Key {
    Key { name, env, secret: false, legacy: Some(legacy) }
}

/// The variable the naming rule gives `name`: `GIRO_` + capitals, `.`/`-` as `_`.
pub fn derived(name: &str) -> String {
    format!("GIRO_{}", name.to_ascii_uppercase().replace(['.', '-'], "_"))
}

impl Key {
    /// Every variable that sets this key, in order of precedence.
    pub fn variables(&self) -> Vec<String> {
        let mut v = vec![self.env.to_string()];
        let d = derived(self.name);
        if d != self.env {
            v.push(d);
        }
        v.extend(self.legacy.map(str::to_string));
        v
    }
}

pub const KEYS: &[Key] = &[
    k("mercado.db-url", "MERCADO_DB_URL"),
    k("mercado.db-usuario", "MERCADO_DB_USER"),
    s("mercado.db-senha", "MERCADO_DB_PASSWORD"),
    k("mercado.db-url-ddl", "GIRO_MERCADO_DB_URL_DDL"),
    k("mercado.db-url-direta", "GIRO_MERCADO_DB_URL_DIRETA"),
    k("mercado.db-url-leitura", "GIRO_MERCADO_DB_URL_LEITURA"),
    k("mercado.porta", "MERCADO_PORTA"),
    k("mercado.eventos-url", "MERCADO_EVENTOS_URL"),
    s("mercado.token-servico", "MERCADO_TOKEN_SERVICO"),
    k("estoque.db-url", "ESTOQUE_DB_URL"),
    k("estoque.db-usuario", "ESTOQUE_DB_USER"),
    s("estoque.db-senha", "ESTOQUE_DB_PASSWORD"),
    k("estoque.db-url-ddl", "GIRO_ESTOQUE_DB_URL_DDL"),
    k("estoque.db-url-direta", "GIRO_ESTOQUE_DB_URL_DIRETA"),
    k("estoque.db-url-leitura", "GIRO_ESTOQUE_DB_URL_LEITURA"),
    k("estoque.porta", "ESTOQUE_PORTA"),
    k("estoque.eventos-url", "ESTOQUE_EVENTOS_URL"),
    s("estoque.token-servico", "ESTOQUE_TOKEN_SERVICO"),
    k("estoque.url", "ESTOQUE_URL"),
    k("estoque.timeout", "GIRO_ESTOQUE_TIMEOUT"),
    k("operador.usuario", "OPERADOR_USUARIO"),
    s("operador.senha", "OPERADOR_SENHA"),
    k("sessao.ttl", "GIRO_SESSAO_TTL"),
    r("sessao.intervalo-limpeza", "GIRO_SESSAO_INTERVALO_LIMPEZA", "GIRO_SESSAO_INTERVALO"),
    r("sessao.lote-limpeza", "GIRO_SESSAO_LOTE_LIMPEZA", "GIRO_SESSAO_LOTE"),
    k("db.pool-max", "GIRO_DB_POOL_MAX"),
    k("db.timeout", "GIRO_DB_TIMEOUT"),
    k("db.vida-maxima", "GIRO_DB_VIDA_MAXIMA"),
    k("db.timeout-comando", "GIRO_DB_TIMEOUT_COMANDO"),
    k("db.timeout-lock", "GIRO_DB_TIMEOUT_LOCK"),
    k("db.timeout-transacao-ociosa", "GIRO_DB_TIMEOUT_TRANSACAO_OCIOSA"),
    k("db.pooler", "GIRO_DB_POOLER"),
    k("db.atraso-maximo-leitura", "GIRO_DB_ATRASO_MAXIMO_LEITURA"),
    k("db.espera-reexecucao", "GIRO_DB_ESPERA_REEXECUCAO"),
    k("http.endereco", "GIRO_HTTP_ENDERECO"),
    k("http.prazo-desligamento", "GIRO_HTTP_PRAZO_DESLIGAMENTO"),
    k("http.drenagem", "GIRO_HTTP_DRENAGEM"),
    k("http.timeout-cabecalho", "GIRO_HTTP_TIMEOUT_CABECALHO"),
    k("http.timeout-corpo", "GIRO_HTTP_TIMEOUT_CORPO"),
    k("http.timeout-ocioso", "GIRO_HTTP_TIMEOUT_OCIOSO"),
    k("http.timeout-requisicao", "GIRO_HTTP_TIMEOUT_REQUISICAO"),
    k("http.max-conexoes", "GIRO_HTTP_MAX_CONEXOES"),
    k("http.timeout-escrita", "GIRO_HTTP_TIMEOUT_ESCRITA"),
    k("http.max-conexoes-por-endereco", "GIRO_HTTP_MAX_CONEXOES_POR_ENDERECO"),
    k("http.prefixo-ipv6", "GIRO_HTTP_PREFIXO_IPV6"),
    k("http.max-contadores", "GIRO_HTTP_MAX_CONTADORES"),
    k("http.proxies-confiaveis", "GIRO_HTTP_PROXIES_CONFIAVEIS"),
    k("http.cookies-seguros", "GIRO_HTTP_COOKIES_SEGUROS"),
    k("login.max-falhas-endereco", "GIRO_LOGIN_MAX_FALHAS_ENDERECO"),
    k("login.max-falhas-usuario", "GIRO_LOGIN_MAX_FALHAS_USUARIO"),
    k("login.janela", "GIRO_LOGIN_JANELA"),
    k("checkout.max-por-minuto", "GIRO_CHECKOUT_MAX_POR_MINUTO"),
    k("checkout.max-unidades-reservadas", "GIRO_CHECKOUT_MAX_UNIDADES_RESERVADAS"),
    k("checkout.max-unidades-por-produto", "GIRO_CHECKOUT_MAX_UNIDADES_POR_PRODUTO"),
    r("log.formato", "GIRO_LOG_FORMATO", "GIRO_LOG_FORMAT"),
    k("outbox.intervalo", "GIRO_OUTBOX_INTERVALO"),
    k("outbox.lote", "GIRO_OUTBOX_LOTE"),
    k("outbox.timeout", "GIRO_OUTBOX_TIMEOUT"),
    k("outbox.backoff-maximo", "GIRO_OUTBOX_BACKOFF_MAXIMO"),
    k("outbox.max-tentativas", "GIRO_OUTBOX_MAX_TENTATIVAS"),
    k("outbox.prazo-entrega", "GIRO_OUTBOX_PRAZO_ENTREGA"),
    k("outbox.publicador-embutido", "GIRO_OUTBOX_PUBLICADOR_EMBUTIDO"),
    k("outbox.visibilidade", "GIRO_OUTBOX_VISIBILIDADE"),
    k("outbox.concorrencia", "GIRO_OUTBOX_CONCORRENCIA"),
    k("outbox.lote-max", "GIRO_OUTBOX_LOTE_MAX"),
    k("outbox.notify", "GIRO_OUTBOX_NOTIFY"),
    k("outbox.retencao", "GIRO_OUTBOX_RETENCAO"),
    k("outbox.transporte", "GIRO_OUTBOX_TRANSPORTE"),
    k("outbox.parte-fresca", "GIRO_OUTBOX_PARTE_FRESCA"),
    k("outbox.varredura", "GIRO_OUTBOX_VARREDURA"),
    k("inbox.retencao", "GIRO_INBOX_RETENCAO"),
    k("audit.atraso", "GIRO_AUDIT_ATRASO"),
    k("reserva.ttl", "GIRO_RESERVA_TTL"),
    r("reserva.intervalo-expiracao", "GIRO_RESERVA_INTERVALO_EXPIRACAO", "GIRO_RESERVA_INTERVALO"),
    r("reserva.lote-expiracao", "GIRO_RESERVA_LOTE_EXPIRACAO", "GIRO_RESERVA_LOTE"),
    k("reserva.expiracao-habilitada", "GIRO_RESERVA_EXPIRACAO_HABILITADA"),
    k("tags.worker-url", "TAG_WORKER_URL"),
    s("tags.worker-token", "TAG_WORKER_TOKEN"),
    k("tags.timeout", "GIRO_TAGS_TIMEOUT"),
    k("tags.reclassificacao-habilitada", "GIRO_TAGS_RECLASSIFICACAO_HABILITADA"),
    r("tags.intervalo-reclassificacao", "GIRO_TAGS_INTERVALO_RECLASSIFICACAO", "GIRO_TAGS_INTERVALO"),
    r("tags.lote-reclassificacao", "GIRO_TAGS_LOTE_RECLASSIFICACAO", "GIRO_TAGS_LOTE"),
    k("web.porta-vitrine", "GIRO_WEB_PORTA_VITRINE"),
    k("web.porta-painel", "GIRO_WEB_PORTA_PAINEL"),
    k("web.dir-vitrine", "GIRO_WEB_DIR_VITRINE"),
    k("web.dir-painel", "GIRO_WEB_DIR_PAINEL"),
    k("web.url-vitrine", "GIRO_WEB_URL_VITRINE"),
    k("publisher.porta-metricas", "GIRO_PUBLISHER_PORTA_METRICAS"),
];

pub fn by_name(name: &str) -> Option<&'static Key> {
    KEYS.iter().find(|k| k.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::layers::DEFAULTS_TOML;

    /// The key lines of the reference, commented out or not: (dotted name, comment after `#`).
    fn reference_lines() -> Vec<(String, String)> {
        let mut section = String::new();
        let mut out = Vec::new();
        for line in DEFAULTS_TOML.lines() {
            let t = line.trim();
            if let Some(name) = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
                section = name.to_string();
                continue;
            }
            let body = t.strip_prefix('#').map_or(t, str::trim_start);
            let Some((name, rest)) = body.split_once('=') else { continue };
            let name = name.trim();
            if name.is_empty()
                || !name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            {
                continue;
            }
            // The comment is after the value's `#` (values never contain one in this file).
            let comment = rest.split_once('#').map(|(_, c)| c.trim().to_string()).unwrap_or_default();
            out.push((format!("{section}.{name}"), comment));
        }
        out
    }

    #[test]
    fn every_key_is_in_the_reference_with_its_env_var_and_a_description_and_vice_versa() {
        let lines = reference_lines();
        for key in KEYS {
            let found: Vec<_> = lines.iter().filter(|(n, _)| n == key.name).collect();
            assert_eq!(found.len(), 1, "config/giro.toml must have exactly one line for `{}`", key.name);
            let comment = &found[0].1;
            let rest = comment.strip_prefix(key.env).unwrap_or_else(|| {
                panic!("the line of `{}` must start its comment with {}: {comment:?}", key.name, key.env)
            });
            assert!(
                !rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_'),
                "`{}`: {comment:?} names another variable than {}",
                key.name,
                key.env
            );
            assert!(
                rest.trim_start_matches([':', ' ']).len() >= 8,
                "`{}` needs a one-line description: {comment:?}",
                key.name
            );
            if key.secret {
                assert!(
                    comment.contains("(secret"),
                    "`{}` is a secret and its line must say so: {comment:?}",
                    key.name
                );
            }
        }
        for (name, comment) in &lines {
            let key = by_name(name)
                .unwrap_or_else(|| panic!("config/giro.toml documents `{name}`, which is not in KEYS"));
            assert!(comment.starts_with(key.env), "`{name}`: {comment:?}");
        }
    }

    #[test]
    fn names_and_environment_variables_are_unique() {
        for (i, a) in KEYS.iter().enumerate() {
            for b in &KEYS[i + 1..] {
                assert_ne!(a.name, b.name);
                for v in a.variables() {
                    assert!(!b.variables().contains(&v), "{} and {} share {v}", a.name, b.name);
                }
            }
        }
    }

    #[test]
    fn every_variable_follows_the_rule_but_the_originals() {
        let originals = ["MERCADO_", "ESTOQUE_", "OPERADOR_", "TAG_WORKER_"];
        for key in KEYS {
            if !originals.iter().any(|p| key.env.starts_with(p)) {
                assert_eq!(key.env, derived(key.name), "{}", key.name);
            }
        }
        assert_eq!(derived("sessao.intervalo-limpeza"), "GIRO_SESSAO_INTERVALO_LIMPEZA");
    }
}
