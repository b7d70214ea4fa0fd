//! A real `giro mercado serve` / `giro estoque serve` process with a database of its own, for the
//! tests that must see what a client on the wire sees (the security doors, issue 13).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use giro_servicos::config::Servico;

use super::process::{env_base, Giro};
use super::{TestDb, ESTOQUE_TOKEN, MERCADO_TOKEN, OPERADOR, SENHA};

/// The secrets every real process gets; no log line may contain any of them.
pub const SEGREDOS: [&str; 3] = [MERCADO_TOKEN, ESTOQUE_TOKEN, SENHA];

pub struct Real {
    pub giro: Giro,
    pub addr: SocketAddr,
    pub db: TestDb,
    pub http: reqwest::Client,
    pub servico: Servico,
}

fn db_var(servico: Servico) -> &'static str {
    match servico {
        Servico::Mercado => "MERCADO_DB_URL",
        Servico::Estoque => "ESTOQUE_DB_URL",
    }
}

pub fn env(servico: Servico, db: &TestDb, extra: &[(&str, &str)]) -> BTreeMap<&'static str, String> {
    let porta = match servico {
        Servico::Mercado => "MERCADO_PORTA",
        Servico::Estoque => "ESTOQUE_PORTA",
    };
    let db_var = db_var(servico);
    let mut e = env_base([
        (db_var, db.url()),
        (porta, "0".to_string()),
        ("GIRO_OUTBOX_PUBLICADOR_EMBUTIDO", "false".to_string()),
        ("GIRO_RESERVA_EXPIRACAO_HABILITADA", "false".to_string()),
        ("GIRO_TAGS_RECLASSIFICACAO_HABILITADA", "false".to_string()),
        ("ESTOQUE_URL", "http://127.0.0.1:9".to_string()),
        ("TAG_WORKER_URL", "http://127.0.0.1:9".to_string()),
        ("GIRO_TAGS_TIMEOUT", "200ms".to_string()),
        ("GIRO_ESTOQUE_TIMEOUT", "200ms".to_string()),
        ("GIRO_DB_POOL_MAX", "4".to_string()),
    ]);
    for (k, v) in extra {
        let k: &'static str = Box::leak(k.to_string().into_boxed_str());
        e.insert(k, v.to_string());
    }
    e
}

impl Real {
    pub async fn start(servico: Servico, extra: &[(&str, &str)]) -> Real {
        let db = TestDb::new(servico).await;
        let mut giro = Giro::spawn(&[servico.nome(), "serve"], &env(servico, &db, extra));
        let addr = giro.wait_listening().await;
        let http = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().expect("client");
        Real { giro, addr, db, http, servico }
    }

    /// [`Real::start`] with the service's database behind a TCP proxy the test can cut.
    pub async fn start_com_proxy(
        servico: Servico,
        extra: &[(&str, &str)],
    ) -> (Real, std::sync::Arc<super::chaos::ChaosProxy>) {
        let db = TestDb::new(servico).await;
        let (proxy, url) = super::chaos::in_front_of(&db).await;
        let mut e = env(servico, &db, extra);
        e.insert(db_var(servico), url);
        let mut giro = Giro::spawn(&[servico.nome(), "serve"], &e);
        let addr = giro.wait_listening().await;
        let http = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().expect("client");
        (Real { giro, addr, db, http, servico }, proxy)
    }

    /// Stops this process and starts another on the same database with `extra` (a
    /// configuration change, such as a new operator password).
    pub async fn reiniciar(&mut self, extra: &[(&str, &str)]) {
        self.giro.signal("TERM");
        self.giro.wait_exit(Duration::from_secs(30)).await;
        self.giro = Giro::spawn(&[self.servico.nome(), "serve"], &env(self.servico, &self.db, extra));
        self.addr = self.giro.wait_listening().await;
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Puts `sku` ('Coca', 8.99, on sale) on this mercado's shelf: `prateleira` units, minimum
    /// `minimo`, ideal `ideal`.
    pub async fn com_produto(&self, sku: &str, prateleira: i32, minimo: i32, ideal: i32) {
        self.db
            .client()
            .await
            .execute(
                "INSERT INTO produto_vitrine (sku, nome, preco, estoque_prateleira, estoque_minimo, estoque_ideal, status) \
                 VALUES ($1, 'Coca', 8.99, $2, $3, $4, 'DISPONIVEL')",
                &[&sku, &prateleira, &minimo, &ideal],
            )
            .await
            .expect("product");
    }

    /// The service token of this service (what its peer sends).
    pub fn token(&self) -> &'static str {
        match self.servico {
            Servico::Mercado => MERCADO_TOKEN,
            Servico::Estoque => ESTOQUE_TOKEN,
        }
    }

    fn csrf_nome(&self) -> &'static str {
        match self.servico {
            Servico::Mercado => "XSRF-MERCADO",
            Servico::Estoque => "XSRF-ESTOQUE",
        }
    }

    /// The name of this service's session cookie.
    pub fn cookie_sessao(&self) -> &'static str {
        match self.servico {
            Servico::Mercado => "MERCADO_SESSAO",
            Servico::Estoque => "ESTOQUE_SESSAO",
        }
    }

    /// `POST /sessao` with `senha`, as `xff` (an `X-Forwarded-For`) when given: the response.
    pub async fn entrar(&self, senha: &str, xff: Option<&str>) -> reqwest::Response {
        let csrf = uuid::Uuid::new_v4().to_string();
        let mut rb = self
            .http
            .post(self.url("/sessao"))
            .header("cookie", format!("{}={csrf}", self.csrf_nome()))
            .header("x-xsrf-token", &csrf)
            .form(&[("usuario", OPERADOR), ("senha", senha)]);
        if let Some(x) = xff {
            rb = rb.header("x-forwarded-for", x);
        }
        rb.send().await.expect("POST /sessao")
    }

    /// An operator session: `(cookie header, csrf token)`.
    pub async fn operador(&self) -> (String, String) {
        let res = self.entrar(SENHA, None).await;
        assert_eq!(res.status(), 204, "operator login");
        let mut cookies = Vec::new();
        let mut csrf = String::new();
        for v in res.headers().get_all("set-cookie") {
            let kv = v.to_str().expect("cookie").split(';').next().unwrap_or("").to_string();
            if let Some(t) = kv.strip_prefix(&format!("{}=", self.csrf_nome())) {
                csrf = t.to_string();
            }
            cookies.push(kv);
        }
        (cookies.join("; "), csrf)
    }

    /// The log so far has none of the configured secrets.
    pub fn sem_segredos(&self) {
        let log = self.giro.log();
        for s in SEGREDOS {
            assert!(!log.contains(s), "a secret in the log:\n{log}");
        }
    }
}

/// A problem+json answer: `(status, body)`, panicking when the content type is another.
pub async fn problem(res: reqwest::Response) -> (u16, serde_json::Value) {
    let status = res.status().as_u16();
    let ct = res.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    let body = res.text().await.unwrap_or_default();
    assert_eq!(ct, "application/problem+json", "status {status}, body {body:?}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
    (status, v)
}
