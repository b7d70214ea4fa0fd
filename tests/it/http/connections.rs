//! Door 2 (issue 13): slow and greedy clients get bounded answers from every listener — a
//! slowloris is disconnected within the header timeout while others are served, idle keep-alive
//! connections are closed, a slow body is 408, a slow handler 503, a panic 500 problem, and the
//! connection cap holds.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::routing::{get, post};
use axum::Router;
use giro_infra::config::LimitesHttp;
use giro_servicos::config::Servico;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

use crate::support::real::Real;

/// Reads until the peer closes (Ok(bytes)) or `limite` passes (Err).
async fn ate_fechar(s: &mut TcpStream, limite: Duration) -> Result<Vec<u8>, ()> {
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    let fim = tokio::time::Instant::now() + limite;
    loop {
        match tokio::time::timeout_at(fim, s.read(&mut buf)).await {
            Err(_) => return Err(()),
            Ok(Ok(0)) | Ok(Err(_)) => return Ok(out),
            Ok(Ok(n)) => out.extend_from_slice(&buf[..n]),
        }
    }
}

/// One request on its own connection, kept open: the status line's code.
async fn pedir(addr: SocketAddr, s: &mut TcpStream) -> u16 {
    let _ = addr;
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
    let mut buf = [0u8; 1024];
    let n = tokio::time::timeout(Duration::from_secs(10), s.read(&mut buf)).await.unwrap().unwrap();
    let linha = String::from_utf8_lossy(&buf[..n]);
    linha.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0)
}

#[tokio::test]
async fn a_slowloris_is_closed_within_the_header_timeout_while_others_are_served_and_idle_ones_go_too() {
    let m = Real::start(
        Servico::Mercado,
        &[
            ("GIRO_HTTP_TIMEOUT_CABECALHO", "1s"),
            ("GIRO_HTTP_TIMEOUT_OCIOSO", "2s"),
            ("GIRO_HTTP_TIMEOUT_CORPO", "1s"),
        ],
    )
    .await;
    let addr = m.addr;

    // Headers at a byte every 200 ms, forever unless the server hangs up.
    let lento = tokio::spawn(async move {
        let mut s = TcpStream::connect(addr).await.unwrap();
        let inicio = Instant::now();
        let cabeca = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Lento: ";
        for b in cabeca.iter().chain(std::iter::repeat_n(&b'a', 10_000)) {
            if s.write_all(&[*b]).await.is_err() {
                break;
            }
            let mut buf = [0u8; 64];
            match tokio::time::timeout(Duration::from_millis(200), s.read(&mut buf)).await {
                Ok(Ok(0)) | Ok(Err(_)) => break,
                _ => {}
            }
            if inicio.elapsed() > Duration::from_secs(30) {
                break;
            }
        }
        inicio.elapsed()
    });
    // Meanwhile a normal client is answered.
    for _ in 0..3 {
        let res = m.http.get(m.url("/healthz")).send().await.unwrap();
        assert_eq!(res.status(), 200);
    }
    let levou = lento.await.unwrap();
    assert!(levou >= Duration::from_millis(900), "closed before the header timeout: {levou:?}");
    assert!(
        levou < Duration::from_secs(20),
        "a slowloris held its connection {levou:?} (header timeout 1 s)"
    );

    // An idle connection (no request at all) is closed after the idle timeout.
    let mut s = TcpStream::connect(addr).await.unwrap();
    let t = Instant::now();
    ate_fechar(&mut s, Duration::from_secs(15)).await.expect("idle connection never closed");
    assert!(t.elapsed() >= Duration::from_millis(1800), "{:?}", t.elapsed());

    // A keep-alive connection idle after its answer is closed too.
    let mut s = TcpStream::connect(addr).await.unwrap();
    assert_eq!(pedir(addr, &mut s).await, 200);
    ate_fechar(&mut s, Duration::from_secs(15)).await.expect("kept-alive connection never closed");

    // A body that stops arriving: 408 problem after the body timeout.
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"POST /pedidos HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"itens\"")
        .await
        .unwrap();
    let resposta = ate_fechar(&mut s, Duration::from_secs(15)).await.expect("slow body never answered");
    let texto = String::from_utf8_lossy(&resposta);
    assert!(texto.starts_with("HTTP/1.1 408"), "{texto}");
    assert!(texto.contains("application/problem+json"), "{texto}");
    m.sem_segredos();
}

#[tokio::test]
async fn the_connection_cap_holds_and_frees_up() {
    let m = Real::start(
        Servico::Mercado,
        &[("GIRO_HTTP_MAX_CONEXOES", "5"), ("GIRO_HTTP_TIMEOUT_OCIOSO", "60s")],
    )
    .await;
    let addr = m.addr;
    let mut abertas = Vec::new();
    for _ in 0..5 {
        let mut s = TcpStream::connect(addr).await.unwrap();
        assert_eq!(pedir(addr, &mut s).await, 200);
        abertas.push(s);
    }
    // One more: a 503 problem at once, and closed.
    let mut s = TcpStream::connect(addr).await.unwrap();
    let resposta = ate_fechar(&mut s, Duration::from_secs(10)).await.expect("refused connection left open");
    let texto = String::from_utf8_lossy(&resposta);
    assert!(texto.starts_with("HTTP/1.1 503"), "{texto}");
    assert!(texto.contains("application/problem+json"), "{texto}");

    // One closed: room again.
    drop(abertas.pop());
    crate::support::wait_until(Duration::from_secs(10), "a free connection slot", || async {
        let mut s = TcpStream::connect(addr).await.ok()?;
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").await.ok()?;
        let mut buf = [0u8; 64];
        let n = tokio::time::timeout(Duration::from_secs(2), s.read(&mut buf)).await.ok()?.ok()?;
        String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200").then_some(())
    })
    .await;
    m.sem_segredos();
}

async fn lento() -> &'static str {
    tokio::time::sleep(Duration::from_secs(30)).await;
    "tarde"
}

async fn panico() -> &'static str {
    panic!("a handler bug");
}

#[tokio::test]
async fn the_shared_serve_answers_a_panic_500_and_a_slow_handler_503_both_as_problems() {
    let router = Router::new().route("/lento", get(lento)).route("/panico", post(panico).get(panico));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let limites = LimitesHttp { timeout_requisicao: Duration::from_millis(500), ..LimitesHttp::default() };
    tokio::spawn(giro_http::serve_config(
        listener,
        router,
        stop.clone(),
        Duration::from_secs(1),
        limites,
        &[],
    ));
    let http = reqwest::Client::new();
    let res = http.get(format!("http://{addr}/panico")).send().await.unwrap();
    assert_eq!(res.status(), 500);
    assert_eq!(res.headers()["content-type"], "application/problem+json");
    // The connection survived the panic: the same client is served again.
    let res = http.get(format!("http://{addr}/lento")).send().await.unwrap();
    assert_eq!(res.status(), 503);
    assert_eq!(res.headers()["content-type"], "application/problem+json");
    stop.cancel();
}
