//! Door 1 of issue 25: the write side of every listener. A client that pipelines requests and
//! never reads its answers is disconnected within `http.timeout-escrita` while others are served;
//! such clients cannot keep a listener at its connection cap; one client address cannot take more
//! than `http.max-conexoes-por-endereco` connections (trusted proxies exempt); and an answer still
//! unwritten when `timeout_requisicao` passes is cut — a stalled body, or a reader trickling.

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use axum::routing::get;
use axum::Router;
use giro_infra::config::LimitesHttp;
use giro_servicos::config::Servico;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_util::sync::CancellationToken;

use crate::support::real::Real;
use crate::support::wait_until;

/// A connection from `origem` (127.0.0.1 when None) with a receive buffer as small as the kernel
/// allows, so the server's writes block as soon as its own send buffer is full.
async fn conectar(addr: SocketAddr, origem: Option<IpAddr>) -> TcpStream {
    let sock = TcpSocket::new_v4().unwrap();
    sock.set_recv_buffer_size(2048).unwrap();
    if let Some(ip) = origem {
        sock.bind(SocketAddr::new(ip, 0)).unwrap();
    }
    sock.connect(addr).await.unwrap()
}

/// The attacker of issue 25: ~100 pipelined `GET /openapi.json` (84 KB each), never read.
async fn sem_ler(addr: SocketAddr) -> TcpStream {
    let mut s = conectar(addr, None).await;
    let pedidos = "GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n".repeat(100);
    s.write_all(pedidos.as_bytes()).await.unwrap();
    s
}

/// Whether the server still has `cliente`'s connection open (its socket ESTABLISHED), read from
/// /proc/net/tcp: once the server closes, its side leaves ESTABLISHED (FIN_WAIT1 with unread data
/// queued, then gone) even though the client, not reading, has not seen the FIN.
fn aberta_no_servidor(servidor: SocketAddr, cliente: SocketAddr) -> bool {
    let hex = |a: SocketAddr| match a.ip() {
        IpAddr::V4(v4) => format!("{:08X}:{:04X}", u32::from_le_bytes(v4.octets()), a.port()),
        IpAddr::V6(_) => unreachable!("IPv4 only"),
    };
    let (local, remoto) = (hex(servidor), hex(cliente));
    let tabela = std::fs::read_to_string("/proc/net/tcp").unwrap();
    tabela.lines().skip(1).any(|l| {
        let c: Vec<&str> = l.split_whitespace().collect();
        c.len() > 3 && c[1] == local && c[2] == remoto && c[3] == "01"
    })
}

/// `GET /healthz` on a fresh connection (from `origem`), kept open: the status code (0 when the
/// connection closed without an answer) and the connection.
async fn healthz(addr: SocketAddr, origem: Option<IpAddr>) -> (u16, String, TcpStream) {
    let mut s = conectar(addr, origem).await;
    let _ = s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").await;
    let mut buf = vec![0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(10), s.read(&mut buf)).await.unwrap().unwrap_or(0);
    let texto = String::from_utf8_lossy(&buf[..n]).to_string();
    let status = texto.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    (status, texto, s)
}

/// Reads until the peer closes: the bytes, or None when `limite` passes first.
async fn ate_fechar(s: &mut TcpStream, limite: Duration) -> Option<usize> {
    let mut total = 0;
    let mut buf = vec![0u8; 64 * 1024];
    let fim = tokio::time::Instant::now() + limite;
    loop {
        match tokio::time::timeout_at(fim, s.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => return Some(total),
            Ok(Ok(n)) => total += n,
        }
    }
}

#[tokio::test]
async fn a_client_that_never_reads_is_disconnected_within_the_write_timeout_while_others_are_served() {
    let m = Real::start(Servico::Mercado, &[("GIRO_HTTP_TIMEOUT_ESCRITA", "2s")]).await;
    let tamanho = m.http.get(m.url("/openapi.json")).send().await.unwrap().bytes().await.unwrap().len();
    let t0 = Instant::now();
    let mut atacante = sem_ler(m.addr).await;
    let cliente = atacante.local_addr().unwrap();
    // Meanwhile another client is served.
    for _ in 0..3 {
        assert_eq!(m.http.get(m.url("/healthz")).send().await.unwrap().status(), 200);
    }
    wait_until(Duration::from_secs(30), "the server to close the never-reading connection", || async {
        (!aberta_no_servidor(m.addr, cliente)).then_some(())
    })
    .await;
    let levou = t0.elapsed();
    assert!(levou >= Duration::from_millis(1900), "closed before the write timeout: {levou:?}");
    assert!(levou < Duration::from_secs(20), "held {levou:?} with a 2 s write timeout");
    // What the server had queued arrives, then the close: the answers were cut, not completed.
    let recebido = ate_fechar(&mut atacante, Duration::from_secs(30)).await.expect("no close after the data");
    assert!(recebido < 100 * tamanho, "{recebido} bytes: all 100 answers were written");
    assert_eq!(m.http.get(m.url("/healthz")).send().await.unwrap().status(), 200);
    m.sem_segredos();
}

#[tokio::test]
async fn never_reading_clients_at_the_connection_cap_do_not_keep_the_listener_off_the_air() {
    let m = Real::start(
        Servico::Mercado,
        &[
            ("GIRO_HTTP_TIMEOUT_ESCRITA", "15s"),
            ("GIRO_HTTP_MAX_CONEXOES", "4"),
            ("GIRO_HTTP_TIMEOUT_OCIOSO", "60s"),
        ],
    )
    .await;
    let mut atacantes = Vec::new();
    for _ in 0..4 {
        atacantes.push(sem_ler(m.addr).await);
    }
    let t0 = Instant::now();
    // (A write timeout of 15 s: the four attackers are set up and the check below made well
    // inside it on a loaded machine, so no slot is freed before the check.)
    // The listener is full: a fresh client is refused at once…
    let (status, texto, _) = healthz(m.addr, None).await;
    assert_eq!(status, 503, "{texto}");
    assert!(texto.contains("application/problem+json"), "{texto}");
    // …until the write timeout frees the slots the attackers hold.
    wait_until(Duration::from_secs(60), "GET /healthz 200 again", || async {
        (healthz(m.addr, None).await.0 == 200).then_some(())
    })
    .await;
    let clientes: Vec<SocketAddr> = atacantes.iter().map(|a| a.local_addr().unwrap()).collect();
    wait_until(Duration::from_secs(60), "every never-reading connection closed", || async {
        clientes.iter().all(|c| !aberta_no_servidor(m.addr, *c)).then_some(())
    })
    .await;
    let levou = t0.elapsed();
    assert!(
        levou < Duration::from_secs(45),
        "never-reading clients held slots {levou:?} (write timeout 15 s)"
    );
    m.sem_segredos();
}

#[tokio::test]
async fn one_client_address_holds_at_most_its_cap_of_connections_and_trusted_proxies_are_exempt() {
    let (a, b, proxy): (IpAddr, IpAddr, IpAddr) =
        ("127.0.0.1".parse().unwrap(), "127.0.0.2".parse().unwrap(), "127.0.0.3".parse().unwrap());
    let m = Real::start(
        Servico::Mercado,
        &[
            ("GIRO_HTTP_MAX_CONEXOES_POR_ENDERECO", "3"),
            ("GIRO_HTTP_PROXIES_CONFIAVEIS", "127.0.0.3"),
            ("GIRO_HTTP_TIMEOUT_OCIOSO", "60s"),
        ],
    )
    .await;
    let mut abertas = Vec::new();
    for _ in 0..3 {
        let (status, texto, s) = healthz(m.addr, Some(a)).await;
        assert_eq!(status, 200, "{texto}");
        abertas.push(s);
    }
    // A fourth from the same address: 503 problem, closed.
    let (status, texto, mut s) = healthz(m.addr, Some(a)).await;
    assert_eq!(status, 503, "{texto}");
    assert!(texto.contains("application/problem+json") && texto.contains("deste endere"), "{texto}");
    assert!(ate_fechar(&mut s, Duration::from_secs(10)).await.is_some(), "refused connection left open");
    // Another address is not affected.
    let (status, texto, _b) = healthz(m.addr, Some(b)).await;
    assert_eq!(status, 200, "{texto}");
    // A trusted proxy carries many clients: no per-address cap for it.
    let mut pela_proxy = Vec::new();
    for _ in 0..6 {
        let (status, texto, s) = healthz(m.addr, Some(proxy)).await;
        assert_eq!(status, 200, "{texto}");
        pela_proxy.push(s);
    }
    // One closed: room again for the capped address.
    drop(abertas.pop());
    wait_until(Duration::from_secs(10), "a free place for 127.0.0.1", || async {
        (healthz(m.addr, Some(a)).await.0 == 200).then_some(())
    })
    .await;
    m.sem_segredos();
}

/// A body that sends one chunk and then never another.
async fn parado() -> axum::body::Body {
    let primeiro =
        futures_util::stream::iter([Ok::<_, std::io::Error>(axum::body::Bytes::from_static(b"inicio"))]);
    axum::body::Body::from_stream(futures_util::StreamExt::chain(primeiro, futures_util::stream::pending()))
}

/// 16 MB: far more than socket buffers hold.
async fn grande() -> Vec<u8> {
    vec![b'x'; 16 * 1024 * 1024]
}

#[tokio::test]
async fn the_request_timeout_covers_the_answer_to_its_last_byte() {
    let router = Router::new().route("/parado", get(parado)).route("/grande", get(grande));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let limites = LimitesHttp {
        timeout_requisicao: Duration::from_secs(2),
        timeout_escrita: Duration::from_secs(60),
        ..LimitesHttp::default()
    };
    tokio::spawn(giro_http::serve_config(
        listener,
        router,
        stop.clone(),
        Duration::from_secs(1),
        limites,
        &[],
    ));

    // A body that stalls after its head: the connection is closed at the request timeout.
    let mut s = conectar(addr, None).await;
    s.write_all(b"GET /parado HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
    let t0 = Instant::now();
    let n = ate_fechar(&mut s, Duration::from_secs(30)).await.expect("a stalled answer kept its connection");
    assert!(n > 0, "no head was sent");
    assert!(t0.elapsed() >= Duration::from_millis(1900), "{:?}", t0.elapsed());

    // A reader taking a little now and then (the writes never stall for the 60 s write
    // timeout): the server closes at the request timeout instead of serving all 16 MB.
    let mut s = conectar(addr, None).await;
    s.write_all(b"GET /grande HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
    let cliente = s.local_addr().unwrap();
    let t0 = Instant::now();
    let leitor = tokio::spawn(async move {
        let mut buf = [0u8; 1024];
        // The attacker's pace (not a synchronisation): about 10 KB/s.
        while let Ok(n) = s.read(&mut buf).await {
            if n == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    wait_until(Duration::from_secs(30), "the server to close a trickling reader's connection", || async {
        (!aberta_no_servidor(addr, cliente)).then_some(())
    })
    .await;
    assert!(t0.elapsed() >= Duration::from_millis(1900), "{:?}", t0.elapsed());
    leitor.abort();
    stop.cancel();
}
