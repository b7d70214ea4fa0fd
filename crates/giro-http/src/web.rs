//! The web listener of a service (SPEC §9.5): mercado serves the built storefront on
//! `web.porta-vitrine`, estoque the dashboard on `web.porta-painel`, as the original's nginx did.
//! It is off unless `web.dir-*` names a folder; the API listener stays API-only.
//!
//! - `/api/*` goes **in-process** to the service's own router with the prefix removed, so the
//!   front and its API share an origin (cookies and CSRF work as is) and the API's rules apply
//!   unchanged — but only for the routes its front calls (issue 25): the caller gives the
//!   allow-list ([`Rota`]s, matched by the same router code), and anything else under `/api`
//!   (`/metrics`, `/eventos`, `/openapi.json`, the other front's routes) is a 404 problem without
//!   reaching the API.
//! - Anything else is a static file of the built front. Hashed assets under `/assets/` get a long
//!   `Cache-Control` (`immutable`) and a plain 404 when missing (never an `index.html` that a
//!   browser would keep for a year); any other path that is not a file gets `index.html`
//!   (client-side routes), revalidated (`no-cache`); `/operador/*`, a second app of the same
//!   build (mercado's operator pages), gets its own.
//! - Text answers are gzip- or brotli-compressed when the client accepts it: from the `.br`/`.gz`
//!   files the build made (`web/scripts/comprimir.mjs`, issue 25: brotli at quality 11 cost
//!   ~12 ms of CPU per request for the 297 KB bundle), on the fly for the rest.
//! - `/config.json`: what a front must know at run time, not baked into its build (issue 27): the
//!   dashboard's link to the storefront (`web.url-vitrine`, else `web.porta-vitrine` on the
//!   dashboard's own host).

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};

use axum::extract::Request;
use axum::http::{header, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::MethodFilter;
use axum::Router;
use tokio::net::TcpListener;
use tower::ServiceExt;
use tower_http::compression::CompressionLayer;
use tower_http::services::{ServeDir, ServeFile};

use crate::Problem;

const LONG_CACHE: &str = "public, max-age=31536000, immutable";
const REVALIDATE: &str = "no-cache";

/// A route the web listener forwards to the API: a method and the API's path template
/// (`/pedidos/{id}`).
pub type Rota = (Method, &'static str);

/// The router of a web listener: the built front in `dir`, `/api/*` forwarded to `api` when it
/// is one of `rotas` (else 404), the front's run-time settings `ajustes` at `/config.json`.
pub fn router(dir: &Path, api: Router, rotas: &[Rota], ajustes: serde_json::Value) -> Router {
    let ajustes = ajustes.to_string();
    let permitidas = filtro(rotas);
    let index = dir.join("index.html");
    let arquivo = |p: PathBuf| ServeFile::new(p).precompressed_br().precompressed_gzip();
    let pasta = || ServeDir::new(dir).precompressed_br().precompressed_gzip();
    let assets = pasta();
    let pages = pasta().append_index_html_on_directories(true).fallback(arquivo(index));
    let operador_index = dir.join("operador/index.html");
    let operador = operador_index
        .is_file()
        .then(|| pasta().append_index_html_on_directories(true).fallback(arquivo(operador_index)));
    Router::new()
        .fallback(move |req: Request| {
            let (api, assets, pages, operador, permitidas, ajustes) = (
                api.clone(),
                assets.clone(),
                pages.clone(),
                operador.clone(),
                permitidas.clone(),
                ajustes.clone(),
            );
            async move {
                let mut req = req;
                if let Some(res) = normalizar(&mut req) {
                    return res;
                }
                let path = req.uri().path();
                if path == "/api" || path.starts_with("/api/") {
                    return forward(api, permitidas, req).await;
                }
                if path == "/config.json" && req.method() == Method::GET {
                    let h = [(header::CONTENT_TYPE, "application/json"), (header::CACHE_CONTROL, REVALIDATE)];
                    return (h, ajustes.clone()).into_response();
                }
                let (served, cache) = if path.starts_with("/assets/") {
                    (assets.oneshot(req).await, LONG_CACHE)
                } else if let Some(operador) =
                    operador.filter(|_| path == "/operador" || path.starts_with("/operador/"))
                {
                    (operador.oneshot(req).await, REVALIDATE)
                } else {
                    (pages.oneshot(req).await, REVALIDATE)
                };
                let mut res = match served {
                    Ok(res) => res.map(axum::body::Body::new),
                    Err(e) => {
                        tracing::warn!(error = %e, "web: cannot read the built front");
                        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
                    }
                };
                if res.status().is_success() || res.status() == StatusCode::NOT_MODIFIED {
                    res.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
                    // Which file answered depends on Accept-Encoding (a precompressed one or not).
                    if !res.headers().contains_key(header::VARY) {
                        res.headers_mut().insert(header::VARY, HeaderValue::from_static("accept-encoding"));
                    }
                }
                res
            }
        })
        .layer(axum::middleware::map_response(cabecalhos_de_seguranca))
        // An answer already encoded (a precompressed file) passes through untouched.
        .layer(CompressionLayer::new())
}

/// The built fronts load only their own files (no inline script: Vite emits none), are never
/// framed, and send no full URL to other origins.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; \
frame-ancestors 'none'";

/// Response layer of a web listener: the security headers on every answer (files and `/api`).
async fn cabecalhos_de_seguranca(mut res: Response) -> Response {
    let h = res.headers_mut();
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    res
}

/// The longest path segment a file system accepts (`NAME_MAX`); a longer one names no file.
const MAX_SEGMENTO: usize = 255;

/// Path hygiene before a file is looked up: repeated slashes collapsed (`//assets` would make
/// the directory redirect protocol-relative: `Location: //assets/`, another host), and a segment
/// no file can have answered without touching the disk (404 under `/assets/`, else the app).
fn normalizar(req: &mut Request) -> Option<Response> {
    let path = req.uri().path();
    if path.contains("//") {
        let mut limpo = String::with_capacity(path.len());
        for c in path.chars() {
            if !(c == '/' && limpo.ends_with('/')) {
                limpo.push(c);
            }
        }
        let pq = match req.uri().query() {
            Some(q) => format!("{limpo}?{q}"),
            None => limpo,
        };
        match pq.parse::<Uri>() {
            Ok(uri) => *req.uri_mut() = uri,
            Err(_) => return Some(StatusCode::BAD_REQUEST.into_response()),
        }
    }
    let path = req.uri().path();
    if path.split('/').any(|s| s.len() > MAX_SEGMENTO) {
        if path.starts_with("/assets/") {
            return Some(StatusCode::NOT_FOUND.into_response());
        }
        if path == "/api" || path.starts_with("/api/") {
            // No route the pages call takes such a segment: the listener's own 404.
            return Some(fora_da_lista());
        }
        // A client-side route with a long segment: the app decides (its not-found page).
        *req.uri_mut() = Uri::from_static("/");
    }
    None
}

/// The allow-list as a router of its own: 204 for a listed method and path, 404 for anything
/// else. Matching with axum's router (not string prefixes) means a path is allowed exactly when
/// the API would route it to a listed handler — percent-encoding, trailing slashes and
/// parameters are read the same way by both.
fn filtro(rotas: &[Rota]) -> Router {
    let mut r = Router::new();
    for (metodo, caminho) in rotas {
        // A path routed again merges its methods into the one it has.
        if let Ok(f) = MethodFilter::try_from(metodo.clone()) {
            r = r.route(caminho, axum::routing::on(f, || async { StatusCode::NO_CONTENT }));
        }
    }
    r.fallback(|| async { StatusCode::NOT_FOUND })
}

/// The answer to what the listener does not forward: a 404 problem, as for a route that is not.
fn fora_da_lista() -> Response {
    Problem::new(StatusCode::NOT_FOUND, "recurso não encontrado").into_response_at(None)
}

/// `/api/x?q` → `/x?q` on the service's own router, when `permitidas` lists it.
async fn forward(api: Router, permitidas: Router, mut req: Request) -> Response {
    let rest = req.uri().path_and_query().map(|pq| pq.as_str()).unwrap_or("/").trim_start_matches("/api");
    let rest = if rest.is_empty() || rest.starts_with('?') { format!("/{rest}") } else { rest.to_string() };
    match rest.parse::<Uri>() {
        Ok(uri) => *req.uri_mut() = uri,
        Err(_) => return StatusCode::BAD_REQUEST.into_response(),
    }
    // A probe with the method and path only: the request itself (body, extensions) goes to the
    // API untouched, never through a second router's matching.
    let sonda = Request::builder().method(req.method().clone()).uri(req.uri().clone());
    let permitida = match sonda.body(axum::body::Body::empty()) {
        Ok(sonda) => permitidas.oneshot(sonda).await.is_ok_and(|res| res.status() == StatusCode::NO_CONTENT),
        Err(_) => false,
    };
    if !permitida {
        return fora_da_lista();
    }
    api.oneshot(req).await.unwrap_or_else(|never| match never {})
}

/// A built web front served beside an API: its folder, its port, its name in the log, and the
/// settings the page reads at start (`ajustes`). The service that owns it says which it is.
pub struct Front {
    pub nome: &'static str,
    pub dir: PathBuf,
    pub porta: u16,
    pub ajustes: serde_json::Value,
}

/// Binds the web listener of `front` on `endereco`: the listener and the router to serve on it
/// (`api` is the service's router, `rotas` what its front may call). A folder without an
/// `index.html` is a start-up error (the front was not built).
pub async fn bind(
    endereco: IpAddr,
    servico: &str,
    front: Front,
    api: &Router,
    rotas: &[Rota],
) -> anyhow::Result<(TcpListener, Router)> {
    let Front { nome, dir, porta, ajustes } = front;
    anyhow::ensure!(
        dir.join("index.html").is_file(),
        "the web front configured for {servico} ({}) has no index.html: build it with `npm run build` in web/",
        dir.display()
    );
    let addr = SocketAddr::new(endereco, porta);
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {addr} for the web front: {e}"))?;
    tracing::info!(service = %servico, addr = %listener.local_addr()?, dir = %dir.display(), "giro {servico} serves the {nome} on http://{}", listener.local_addr()?);
    Ok((listener, router(&dir, api.clone(), rotas, ajustes)))
}
