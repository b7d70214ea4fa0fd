//! The web listener's router (SPEC §9.5, issues 18 and 25) in-process: text assets gzip- or
//! brotli-compressed when the client accepts it — the build's precompressed `.br`/`.gz` files
//! served as they are, on the fly for a file without them — and a second app of the build under
//! `/operador/` (mercado's operator pages) with its own `index.html` for its client-side routes.

use axum::body::Body;
use axum::http::Request;
use tower::ServiceExt;

use crate::support::process::scratch_dir;

fn dist() -> std::path::PathBuf {
    let d = scratch_dir().join("dist");
    std::fs::create_dir_all(d.join("assets")).unwrap();
    std::fs::create_dir_all(d.join("operador")).unwrap();
    std::fs::write(d.join("index.html"), "<!doctype html><title>vitrine</title>").unwrap();
    std::fs::write(d.join("operador/index.html"), "<!doctype html><title>operador</title>").unwrap();
    // Big enough to be worth compressing (tower-http skips bodies under 32 bytes).
    let js = "export function giro(){return 'o estoque que gira sozinho';}\n".repeat(200);
    std::fs::write(d.join("assets/app-1a2b3c.js"), js).unwrap();
    d
}

async fn get(router: &axum::Router, path: &str, accept: Option<&str>) -> (u16, Option<String>, Vec<u8>) {
    let (status, enc, _, body) = get_vary(router, path, accept).await;
    (status, enc, body)
}

async fn get_vary(
    router: &axum::Router,
    path: &str,
    accept: Option<&str>,
) -> (u16, Option<String>, Option<String>, Vec<u8>) {
    let mut req = Request::get(path);
    if let Some(a) = accept {
        req = req.header("accept-encoding", a);
    }
    let res = router.clone().oneshot(req.body(Body::empty()).unwrap()).await.unwrap();
    let status = res.status().as_u16();
    let enc = res.headers().get("content-encoding").map(|v| v.to_str().unwrap().to_string());
    let vary = res.headers().get("vary").map(|v| v.to_str().unwrap().to_string());
    let body = axum::body::to_bytes(res.into_body(), usize::MAX).await.unwrap().to_vec();
    (status, enc, vary, body)
}

#[tokio::test]
async fn a_js_asset_is_served_gzip_or_brotli_when_asked_and_plain_otherwise() {
    let dir = dist();
    let plain_len = std::fs::metadata(dir.join("assets/app-1a2b3c.js")).unwrap().len() as usize;
    let router = giro_http::web::router(&dir, axum::Router::new(), &[], serde_json::json!({}));

    let (status, enc, body) = get(&router, "/assets/app-1a2b3c.js", Some("gzip")).await;
    assert_eq!((status, enc.as_deref()), (200, Some("gzip")));
    assert_eq!(&body[..2], &[0x1f, 0x8b], "a gzip stream");
    assert!(body.len() < plain_len / 4, "{} of {plain_len} bytes", body.len());

    let (status, enc, body) = get(&router, "/assets/app-1a2b3c.js", Some("br")).await;
    assert_eq!((status, enc.as_deref()), (200, Some("br")));
    assert!(body.len() < plain_len / 4, "{} of {plain_len} bytes", body.len());

    // Both accepted: brotli is preferred; none accepted: the file as it is.
    let (_, enc, _) = get(&router, "/assets/app-1a2b3c.js", Some("gzip, deflate, br")).await;
    assert_eq!(enc.as_deref(), Some("br"));
    let (status, enc, body) = get(&router, "/assets/app-1a2b3c.js", None).await;
    assert_eq!((status, enc, body.len()), (200, None, plain_len));
}

#[tokio::test]
async fn the_operator_app_has_its_own_index_for_its_routes() {
    let router = giro_http::web::router(&dist(), axum::Router::new(), &[], serde_json::json!({}));
    for path in ["/operador/", "/operador/produtos", "/operador/eventos"] {
        let (status, _, body) = get(&router, path, None).await;
        assert_eq!(status, 200, "{path}");
        assert!(String::from_utf8_lossy(&body).contains("<title>operador</title>"), "{path}");
    }
    let (_, _, body) = get(&router, "/carrinho", None).await;
    assert!(String::from_utf8_lossy(&body).contains("<title>vitrine</title>"));
}

#[tokio::test]
async fn the_builds_precompressed_files_are_served_as_they_are_when_the_client_accepts_them() {
    let dir = dist();
    let js = std::fs::read(dir.join("assets/app-1a2b3c.js")).unwrap();
    // Stand-ins for what web/scripts/comprimir.mjs writes: marked, so the answer shows which file
    // was sent (a compressor run per request could never produce these bytes).
    std::fs::write(dir.join("assets/app-1a2b3c.js.br"), b"BR-FEITO-NO-BUILD").unwrap();
    std::fs::write(dir.join("assets/app-1a2b3c.js.gz"), b"GZ-FEITO-NO-BUILD").unwrap();
    std::fs::write(dir.join("index.html.br"), b"BR-INDEX").unwrap();
    let router = giro_http::web::router(&dir, axum::Router::new(), &[], serde_json::json!({}));

    let (status, enc, vary, body) =
        get_vary(&router, "/assets/app-1a2b3c.js", Some("gzip, deflate, br")).await;
    assert_eq!((status, enc.as_deref(), body.as_slice()), (200, Some("br"), &b"BR-FEITO-NO-BUILD"[..]));
    assert!(vary.unwrap_or_default().to_ascii_lowercase().contains("accept-encoding"));
    let (status, enc, body) = get(&router, "/assets/app-1a2b3c.js", Some("gzip")).await;
    assert_eq!((status, enc.as_deref(), body.as_slice()), (200, Some("gzip"), &b"GZ-FEITO-NO-BUILD"[..]));
    // No encoding accepted: the file itself, and the cache still says it varies.
    let (status, enc, vary, body) = get_vary(&router, "/assets/app-1a2b3c.js", None).await;
    assert_eq!((status, enc, body), (200, None, js));
    assert!(vary.unwrap_or_default().to_ascii_lowercase().contains("accept-encoding"));
    // index.html, also as the client-side routes' fallback, from its precompressed file.
    for path in ["/", "/carrinho"] {
        let (status, enc, body) = get(&router, path, Some("br")).await;
        assert_eq!((status, enc.as_deref(), body.as_slice()), (200, Some("br"), &b"BR-INDEX"[..]), "{path}");
    }
    // Only gzip accepted and no .gz of index.html: compressed on the fly, a real gzip stream.
    let (status, enc, body) = get(&router, "/", Some("gzip")).await;
    assert_eq!((status, enc.as_deref()), (200, Some("gzip")));
    assert_eq!(&body[..2], &[0x1f, 0x8b]);
}
