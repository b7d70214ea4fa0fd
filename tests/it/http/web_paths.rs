//! Door 5 (issue 13): the web listeners — security headers on every answer (CSP without inline
//! scripts, no framing, same-origin referrer), no 500 for a path segment no file can have, no
//! protocol-relative redirect, problems (never plain text) for paths that are not UTF-8 — and
//! `no-store` on session and operator answers.

use std::net::SocketAddr;
use std::time::Duration;

use giro_servicos::config::Servico;

use crate::support::process::{scratch_dir, Giro};
use crate::support::real::{env, Real};
use crate::support::TestDb;

fn dist() -> std::path::PathBuf {
    let d = scratch_dir().join("dist");
    std::fs::create_dir_all(d.join("assets")).unwrap();
    std::fs::write(
        d.join("index.html"),
        "<!doctype html><html><head><script type=\"module\" src=\"/assets/app.js\"></script></head><body></body></html>",
    )
    .unwrap();
    std::fs::write(d.join("assets/app.js"), "console.log('ok')").unwrap();
    d
}

async fn web_addr(giro: &mut Giro) -> SocketAddr {
    let needle = "serves the storefront on http://";
    let line = giro.wait_for_line(needle, Duration::from_secs(30)).await;
    let start = line.find(needle).unwrap() + needle.len();
    let addr: String = line[start..].chars().take_while(|c| !c.is_whitespace()).collect();
    addr.parse().unwrap()
}

#[tokio::test]
async fn the_storefront_listener_sends_security_headers_and_never_500s_or_redirects_off_site() {
    let db = TestDb::new(Servico::Mercado).await;
    let d = dist();
    let dir = d.display().to_string();
    let mut giro = Giro::spawn(
        &["mercado", "serve"],
        &env(Servico::Mercado, &db, &[("GIRO_WEB_PORTA_VITRINE", "0"), ("GIRO_WEB_DIR_VITRINE", &dir)]),
    );
    let web = web_addr(&mut giro).await;
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let longo = "a".repeat(300);
    for path in [
        "/".to_string(),
        "/produtos/7894900011517".to_string(),
        "/assets/app.js".to_string(),
        "/api/produtos".to_string(),
        format!("/produtos/{longo}"),
        format!("/assets/{longo}.js"),
        format!("/{longo}/{longo}"),
        "//assets".to_string(),
        "//evil.example/x".to_string(),
        "/produtos/%FF".to_string(),
        "/api/produtos/%FF".to_string(),
    ] {
        let res = http.get(format!("http://{web}{path}")).send().await.unwrap();
        let status = res.status().as_u16();
        let h = res.headers().clone();
        assert!(status < 500, "{path}: {status}");
        if let Some(loc) = h.get("location") {
            let loc = loc.to_str().unwrap();
            assert!(loc.starts_with('/') && !loc.starts_with("//"), "{path}: Location {loc}");
        }
        let csp =
            h.get("content-security-policy").unwrap_or_else(|| panic!("{path}: no CSP")).to_str().unwrap();
        assert!(csp.contains("frame-ancestors 'none'") && csp.contains("script-src 'self'"), "{csp}");
        assert!(!csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"), "{csp}");
        assert_eq!(h["x-frame-options"], "DENY", "{path}");
        assert_eq!(h["referrer-policy"], "same-origin", "{path}");
        if status == 400 {
            assert_eq!(h["content-type"], "application/problem+json", "{path}");
        }
    }
    let res = http.get(format!("http://{web}/assets/{longo}.js")).send().await.unwrap();
    assert_eq!(res.status(), 404);
    let log = giro.log();
    for s in crate::support::real::SEGREDOS {
        assert!(!log.contains(s), "secret in the log:\n{log}");
    }
}

#[tokio::test]
async fn session_and_operator_answers_are_no_store_and_cookies_secure_when_configured() {
    let e = Real::start(Servico::Estoque, &[("GIRO_HTTP_COOKIES_SEGUROS", "true")]).await;
    let res = e.http.get(e.url("/sessao")).send().await.unwrap();
    assert_eq!(res.headers()["cache-control"], "no-store");
    let login = e.entrar(crate::support::SENHA, None).await;
    assert_eq!(login.status(), 204);
    assert_eq!(login.headers()["cache-control"], "no-store");
    let cookies: Vec<_> =
        login.headers().get_all("set-cookie").iter().map(|v| v.to_str().unwrap().to_string()).collect();
    assert!(!cookies.is_empty() && cookies.iter().all(|c| c.contains("; Secure")), "{cookies:?}");
    let (cookie, _) = e.operador().await;
    let res = e.http.get(e.url("/painel/resumo")).header("cookie", &cookie).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["cache-control"], "no-store");
    // The peer's lookup (service token) is no operator answer: cacheable as before.
    let res = e.http.get(e.url("/produtos/7894900011517")).bearer_auth(e.token()).send().await.unwrap();
    assert!(res.headers().get("cache-control").is_none());
    e.sem_segredos();
}
