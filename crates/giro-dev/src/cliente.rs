//! A small operator client for the services' public APIs: logs in through `/sessao` with the
//! SPA's CSRF double submit and keeps the cookies. Used by `giro dev` to load the demo catalogue.

use std::time::Duration;

use anyhow::Context;
use reqwest::header;
use serde_json::Value;

pub struct Operador {
    base: String,
    http: reqwest::Client,
    cookie: String,
    csrf: String,
}

impl Operador {
    /// Logs in on the service at `base` whose CSRF cookie is `csrf_cookie` (`XSRF-ESTOQUE`, …).
    pub async fn login(
        base: &str,
        csrf_cookie: &str,
        usuario: &str,
        senha: &str,
    ) -> anyhow::Result<Operador> {
        let http = reqwest::Client::builder().http1_only().timeout(Duration::from_secs(10)).build()?;
        let csrf = uuid::Uuid::new_v4().simple().to_string();
        let res = http
            .post(format!("{base}/sessao"))
            .header(header::COOKIE, format!("{csrf_cookie}={csrf}"))
            .header("X-XSRF-TOKEN", &csrf)
            .form(&[("usuario", usuario), ("senha", senha)])
            .send()
            .await
            .with_context(|| format!("POST {base}/sessao"))?;
        anyhow::ensure!(res.status().as_u16() == 204, "login at {base} answered {}", res.status());
        let mut cookies = Vec::new();
        let mut token = csrf;
        for v in res.headers().get_all(header::SET_COOKIE) {
            let kv = v.to_str().unwrap_or("").split(';').next().unwrap_or("").to_string();
            match kv.strip_prefix(&format!("{csrf_cookie}=")) {
                Some(t) => token = t.to_string(),
                None => cookies.push(kv),
            }
        }
        cookies.push(format!("{csrf_cookie}={token}"));
        Ok(Operador { base: base.to_string(), http, cookie: cookies.join("; "), csrf: token })
    }

    /// POSTs `body` as JSON to `path`; returns the status and the JSON answer (or null).
    pub async fn post(&self, path: &str, body: &Value) -> anyhow::Result<(u16, Value)> {
        let res = self
            .http
            .post(format!("{}{path}", self.base))
            .header(header::COOKIE, &self.cookie)
            .header("X-XSRF-TOKEN", &self.csrf)
            .json(body)
            .send()
            .await
            .with_context(|| format!("POST {}{path}", self.base))?;
        let status = res.status().as_u16();
        Ok((status, res.json().await.unwrap_or(Value::Null)))
    }

    /// GETs `path` with the session; returns the status and the JSON answer (or null).
    pub async fn get(&self, path: &str) -> anyhow::Result<(u16, Value)> {
        let res = self
            .http
            .get(format!("{}{path}", self.base))
            .header(header::COOKIE, &self.cookie)
            .send()
            .await
            .with_context(|| format!("GET {}{path}", self.base))?;
        let status = res.status().as_u16();
        Ok((status, res.json().await.unwrap_or(Value::Null)))
    }
}
