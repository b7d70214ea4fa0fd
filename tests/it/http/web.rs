//! The web listener (SPEC §9.5): the real binary serves a built front (a tiny `dist` made here)
//! on its web port — files, `index.html` for client-side routes, long cache for hashed assets —
//! and forwards `/api/*` in-process to its own router with the same rules; the API port stays
//! API-only.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use giro_servicos::config::Servico;

use crate::support::process::{env_base, scratch_dir, Giro};
use crate::support::{TestDb, OPERADOR, SENHA};

const INDEX: &str = "<!doctype html><title>vitrine</title><div id=root></div>";
const ASSET: &str = "console.log('giro')";

fn dist() -> std::path::PathBuf {
    let d = scratch_dir().join("dist");
    std::fs::create_dir_all(d.join("assets")).unwrap();
    std::fs::write(d.join("index.html"), INDEX).unwrap();
    std::fs::write(d.join("assets/x.js"), ASSET).unwrap();
    std::fs::write(d.join("giro-mark.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>").unwrap();
    d
}

fn env(db: &TestDb, dir: &std::path::Path) -> BTreeMap<&'static str, String> {
    env_base([
        ("MERCADO_DB_URL", db.url()),
        ("MERCADO_PORTA", "0".to_string()),
        ("GIRO_WEB_PORTA_VITRINE", "0".to_string()),
        ("GIRO_WEB_DIR_VITRINE", dir.display().to_string()),
        ("GIRO_OUTBOX_PUBLICADOR_EMBUTIDO", "false".to_string()),
        ("ESTOQUE_URL", "http://127.0.0.1:9".to_string()),
    ])
}

async fn web_addr(giro: &mut Giro) -> SocketAddr {
    let needle = "serves the storefront on http://";
    let line = giro.wait_for_line(needle, Duration::from_secs(30)).await;
    let start = line.find(needle).unwrap() + needle.len();
    let addr: String = line[start..].chars().take_while(|c| !c.is_whitespace()).collect();
    addr.parse().unwrap_or_else(|e| panic!("bad address {addr:?} in {line:?}: {e}"))
}

struct Got {
    status: u16,
    cache: Option<String>,
    content_type: Option<String>,
    body: String,
}

async fn get(http: &reqwest::Client, url: String) -> Got {
    let res = http.get(&url).send().await.unwrap_or_else(|e| panic!("GET {url}: {e}"));
    let h = |n| res.headers().get(n).map(|v: &reqwest::header::HeaderValue| v.to_str().unwrap().to_string());
    let (status, cache, content_type) = (res.status().as_u16(), h("cache-control"), h("content-type"));
    Got { status, cache, content_type, body: res.text().await.unwrap() }
}

#[tokio::test]
async fn mercado_serves_the_built_storefront_and_forwards_api_to_its_own_router() {
    let db = TestDb::new(Servico::Mercado).await;
    let dir = dist();
    let mut giro = Giro::spawn(&["mercado", "serve"], &env(&db, &dir));
    let api = giro.wait_listening().await;
    let web = web_addr(&mut giro).await;
    assert_ne!(api, web);
    let http = reqwest::Client::builder().timeout(Duration::from_secs(10)).build().unwrap();
    let url = |p: &str| format!("http://{web}{p}");

    let root = get(&http, url("/")).await;
    assert_eq!((root.status, root.body.as_str()), (200, INDEX));
    assert_eq!(root.cache.as_deref(), Some("no-cache"), "index.html must be revalidated");
    assert!(root.content_type.unwrap_or_default().starts_with("text/html"));

    // A client-side route that is no file: index.html, so the SPA's router takes it.
    for route in ["/produtos/123", "/pedidos/0b8f6a4e-9a53-4d0e-9a3a-4b5e0e5a1c7d", "/carrinho"] {
        let page = get(&http, url(route)).await;
        assert_eq!((page.status, page.body.as_str()), (200, INDEX), "{route}");
        assert_eq!(page.cache.as_deref(), Some("no-cache"), "{route}");
    }

    let asset = get(&http, url("/assets/x.js")).await;
    assert_eq!((asset.status, asset.body.as_str()), (200, ASSET));
    assert_eq!(asset.cache.as_deref(), Some("public, max-age=31536000, immutable"));
    assert!(asset.content_type.unwrap_or_default().contains("javascript"));
    // A hashed asset that is not there is a 404, never an index.html cached for a year.
    let missing = get(&http, url("/assets/nao-existe.js")).await;
    assert_eq!(missing.status, 404);
    assert_eq!(missing.cache, None);
    // Other files of the build are served as they are.
    let svg = get(&http, url("/giro-mark.svg")).await;
    assert_eq!(svg.status, 200);
    assert!(svg.content_type.unwrap_or_default().starts_with("image/svg+xml"));
    // No way out of the folder.
    let outside = get(&http, url("/..%2F..%2Fetc%2Fpasswd")).await;
    assert!(!outside.body.contains("root:"), "{}", outside.body);

    // /api/* is the service's own router, prefix removed, same rules.
    let health = get(&http, url("/api/actuator/health")).await;
    assert_eq!(health.status, 200);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&health.body).unwrap(),
        serde_json::json!({"status": "UP"})
    );
    // Only the front's routes are forwarded (issue 25): anything else under /api is 404.
    let denied = get(&http, url("/api/nao-existe")).await;
    assert_eq!(denied.status, 404, "{}", denied.body);
    assert_eq!(denied.content_type.as_deref(), Some("application/problem+json"));
    let produtos = get(&http, url("/api/produtos?busca=x")).await;
    assert_eq!((produtos.status, produtos.body.as_str()), (200, "[]"));
    let sem_sessao = get(&http, url("/api/sessao")).await;
    assert_eq!(sem_sessao.status, 401);
    assert!(sem_sessao.body.contains("nenhum operador logado"), "{}", sem_sessao.body);

    // The API listener stays API-only: no front there.
    let api_root = get(&http, format!("http://{api}/")).await;
    assert_eq!(api_root.status, 401);
    let api_asset = get(&http, format!("http://{api}/assets/x.js")).await;
    assert_eq!(api_asset.status, 401);

    giro.signal("TERM");
    let status = giro.wait_exit(Duration::from_secs(10)).await.expect("giro did not stop after SIGTERM");
    assert!(status.success(), "exit status {status}");
}

#[tokio::test]
async fn a_configured_front_that_was_not_built_stops_the_service_at_start() {
    let db = TestDb::new(Servico::Mercado).await;
    let empty = scratch_dir();
    let mut giro = Giro::spawn(&["mercado", "serve"], &env(&db, &empty));
    let status = giro.wait_exit(Duration::from_secs(30)).await.expect("giro should refuse to start");
    assert!(!status.success());
    assert!(giro.log().contains("has no index.html"), "{}", giro.log());
}

#[tokio::test]
async fn estoque_has_no_web_listener_without_its_own_front() {
    // The storefront's folder is mercado's; estoque serves only `web.dir-painel`.
    let db = TestDb::new(Servico::Estoque).await;
    let dir = dist();
    let mut e = env(&db, &dir);
    e.remove("MERCADO_DB_URL");
    e.insert("ESTOQUE_DB_URL", db.url());
    e.insert("ESTOQUE_PORTA", "0".to_string());
    let mut giro = Giro::spawn(&["estoque", "serve"], &e);
    // The web listener is bound and logged before the API's "listening on" line.
    giro.wait_listening().await;
    assert!(!giro.log().contains(" serves the "), "{}", giro.log());
}

/// The operator's cookie header and CSRF token, logged in through `base` (a web listener's `/api`).
async fn entrar(http: &reqwest::Client, base: &str) -> (String, String) {
    let csrf = uuid::Uuid::new_v4().to_string();
    let res = http
        .post(format!("{base}/api/sessao"))
        .header("cookie", format!("XSRF-MERCADO={csrf}"))
        .header("x-xsrf-token", &csrf)
        .form(&[("usuario", OPERADOR), ("senha", SENHA)])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 204, "login through the storefront");
    let mut cookies = Vec::new();
    let mut token = String::new();
    for v in res.headers().get_all("set-cookie") {
        let kv = v.to_str().unwrap().split(';').next().unwrap_or("").to_string();
        if let Some(t) = kv.strip_prefix("XSRF-MERCADO=") {
            token = t.to_string();
        }
        cookies.push(kv);
    }
    (cookies.join("; "), token)
}

#[tokio::test]
async fn the_storefront_forwards_only_its_pages_routes_and_health_sub_routes_follow_the_input_policy() {
    let db = TestDb::new(Servico::Mercado).await;
    let dir = dist();
    let mut giro = Giro::spawn(&["mercado", "serve"], &env(&db, &dir));
    let api = giro.wait_listening().await;
    let web = web_addr(&mut giro).await;
    let http = reqwest::Client::builder().timeout(Duration::from_secs(10)).build().unwrap();
    let base = format!("http://{web}");

    // What the public must not see through the storefront: metrics, the service-to-service
    // receiver, the API's documents, the dashboard's routes, unknown operator paths — however
    // the path is spelled.
    for (metodo, path) in [
        ("GET", "/api/metrics"),
        ("GET", "/api//metrics"),
        ("GET", "/api/metrics/"),
        ("GET", "/api/%6detrics"),
        ("GET", "/api/METRICS"),
        ("GET", "/api/produtos/../metrics"),
        ("POST", "/api/eventos"),
        ("POST", "/api/eventos/lote"),
        ("GET", "/api/openapi.json"),
        ("GET", "/api/painel/resumo"),
        ("POST", "/api/lotes"),
        ("GET", "/api/operacao/nao-existe"),
        ("GET", "/api/actuator/health/db"),
        ("DELETE", "/api/produtos"),
        ("PUT", "/api/pedidos"),
        ("GET", "/api"),
    ] {
        let res = http.request(metodo.parse().unwrap(), format!("{base}{path}")).send().await.unwrap();
        let status = res.status().as_u16();
        let ct = res.headers().get("content-type").map(|v| v.to_str().unwrap().to_string());
        let body = res.text().await.unwrap();
        assert_eq!(status, 404, "{metodo} {path}: {body}");
        assert_eq!(ct.as_deref(), Some("application/problem+json"), "{metodo} {path}");
        assert!(!body.contains("giro_"), "{metodo} {path} leaked metrics: {body}");
    }
    // The API port still serves its metrics (for the scraper, not the public).
    assert_eq!(http.get(format!("http://{api}/metrics")).send().await.unwrap().status(), 200);

    // The shop works; so does a load balancer's readiness check through the web port.
    assert_eq!(get(&http, format!("{base}/api/produtos")).await.status, 200);
    assert_eq!(get(&http, format!("{base}/api/produtos/7894900011517")).await.status, 404);
    assert_eq!(get(&http, format!("{base}/api/readyz")).await.status, 200);
    let pedido = http
        .post(format!("{base}/api/pedidos"))
        .json(&serde_json::json!({"itens": []}))
        .send()
        .await
        .unwrap();
    assert_eq!(pedido.status(), 400, "POST /pedidos reaches the API's validation");

    // The operator pages' flow through the same listener: login, their routes, the console.
    let (cookie, csrf) = entrar(&http, &base).await;
    for path in
        ["/api/sessao", "/api/operacao/produtos", "/api/operacao/outbox", "/api/operacao/outbox/eventos"]
    {
        let res = http.get(format!("{base}{path}")).header("cookie", &cookie).send().await.unwrap();
        assert_eq!(res.status(), 200, "{path}");
    }
    let res = http
        .post(format!("{base}/api/operacao/outbox/reenvio"))
        .header("cookie", &cookie)
        .header("x-xsrf-token", &csrf)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "the console's replay-all through the storefront");
    // Even logged in, what is not the pages' stays 404.
    let res = http.get(format!("{base}/api/metrics")).header("cookie", &cookie).send().await.unwrap();
    assert_eq!(res.status(), 404);

    // Health sub-routes (API port): the known components answer, anything else is 404.
    for (path, status) in [
        ("/actuator/health/liveness", 200),
        ("/actuator/health/ping", 200),
        ("/actuator/health/readiness", 200),
        ("/actuator/health/db", 200),
        ("/actuator/health/%00", 404),
        ("/actuator/health/x", 404),
        ("/actuator/health/db/x", 404),
        ("/actuator/health/%FF", 404),
    ] {
        let res = http.get(format!("http://{api}{path}")).send().await.unwrap();
        assert_eq!(res.status().as_u16(), status, "{path}");
        if status == 404 {
            assert_eq!(res.headers()["content-type"], "application/problem+json", "{path}");
        }
    }
    giro.signal("TERM");
    giro.wait_exit(Duration::from_secs(10)).await.expect("giro did not stop after SIGTERM");
}

/// The dashboard's link to the storefront is a run-time setting (issue 27), answered by its
/// listener at `/config.json`, not a constant baked into the build.
#[tokio::test]
async fn the_dashboard_listener_answers_its_run_time_settings() {
    let dir = crate::support::process::scratch_dir();
    std::fs::write(dir.join("index.html"), "<!doctype html><title>painel</title>").unwrap();
    let ajustes = serde_json::json!({"urlVitrine": "https://loja.exemplo", "portaVitrine": 15173});
    let router = giro_http::web::router(&dir, axum::Router::new(), &[], ajustes.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    let res = reqwest::get(format!("http://{addr}/config.json")).await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["cache-control"], "no-cache");
    assert_eq!(res.json::<serde_json::Value>().await.unwrap(), ajustes);
}

/// Every path a front's API client asks for (`pedir<…>('/…')` in web/) is one the web listener
/// forwards (`server::rotas_web`): a route added to the API and called by a front but not listed
/// would answer 404 through the listener, as the Estoque page did once.
#[test]
fn every_api_path_the_fronts_call_is_forwarded_by_their_web_listener() {
    use giro_servicos::config::Servico;
    let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
    fn arquivos(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() && p.file_name().is_some_and(|n| n != "node_modules" && n != "dist") {
                arquivos(&p, out);
            } else if p.extension().is_some_and(|x| x == "ts" || x == "tsx")
                && !p.to_string_lossy().contains(".test.")
            {
                out.push(p);
            }
        }
    }
    // `/pedidos/${encodeURIComponent(id)}/pagamento${q}` → `/pedidos/{}/pagamento`.
    fn caminho(literal: &str) -> String {
        let mut out = String::new();
        let mut resto = literal;
        while let Some(i) = resto.find("${") {
            out.push_str(&resto[..i]);
            let fim = resto[i..].find('}').map_or(resto.len(), |f| i + f + 1);
            if out.ends_with('/') {
                out.push_str("{}");
                resto = &resto[fim..];
            } else {
                resto = ""; // a query string appended: the path ends here
            }
        }
        out.push_str(resto);
        out.split('?').next().unwrap_or("").to_string()
    }
    let casa = |modelo: &str, p: &str| {
        let (m, c): (Vec<&str>, Vec<&str>) = (modelo.split('/').collect(), p.split('/').collect());
        m.len() == c.len() && m.iter().zip(&c).all(|(a, b)| a == b || (a.starts_with('{') && !b.is_empty()))
    };
    let mut vistos = 0;
    for (pasta, servicos) in [
        ("vitrine/src", vec![Servico::Mercado]),
        ("painel/src", vec![Servico::Estoque]),
        ("shared", vec![Servico::Mercado, Servico::Estoque]),
    ] {
        let mut fs = Vec::new();
        arquivos(&web.join(pasta), &mut fs);
        for f in fs {
            let texto = std::fs::read_to_string(&f).unwrap();
            for (i, _) in texto.match_indices("pedir<") {
                let depois = &texto[i..];
                let Some(abre) = depois.find('(') else { continue };
                let arg = depois[abre + 1..].trim_start();
                let Some(aspa) = arg.chars().next().filter(|c| *c == '\'' || *c == '`') else { continue };
                let Some(fim) = arg[1..].find(aspa) else { continue };
                let p = caminho(&arg[1..1 + fim]);
                vistos += 1;
                for s in &servicos {
                    let rotas = giro_servicos::server::rotas_web(*s);
                    assert!(
                        rotas.iter().any(|(_, modelo)| casa(modelo, &p)),
                        "{} asks for {p}, which {s}'s web listener does not forward (server::rotas_web)",
                        f.display()
                    );
                }
            }
        }
    }
    assert!(vistos >= 15, "only {vistos} API calls found in web/: the scan is broken");
}
