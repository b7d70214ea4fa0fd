//! Door 3 (issue 13): password guessing is throttled per client address and per user name,
//! answered 429 problem+json with `Retry-After` and logged with the client address, while the
//! real operator keeps a way in: another address, or an address they logged in from before.
//! The client address behind a trusted proxy comes from `X-Forwarded-For`.

use std::time::Duration;

use giro::config::Servico;

use crate::support::real::{problem, Real};
use crate::support::SENHA;

#[tokio::test]
async fn failed_logins_lock_one_address_with_429_and_retry_after_and_the_password_works_elsewhere() {
    let mut m = Real::start(
        Servico::Mercado,
        &[
            ("GIRO_LOGIN_MAX_FALHAS_ENDERECO", "3"),
            ("GIRO_LOGIN_MAX_FALHAS_USUARIO", "6"),
            ("GIRO_LOGIN_JANELA", "10m"),
            // The test talks through "a proxy" on loopback, naming the client in X-Forwarded-For.
            ("GIRO_HTTP_PROXIES_CONFIAVEIS", "127.0.0.1/32, ::1"),
        ],
    )
    .await;
    let atacante = "203.0.113.7";
    for _ in 0..3 {
        assert_eq!(m.entrar("errada-123", Some(atacante)).await.status(), 401);
    }
    // Locked, even with the right password: 429 with Retry-After.
    let res = m.entrar(SENHA, Some(atacante)).await;
    let retry: u64 = res.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=600).contains(&retry), "{retry}");
    let (status, p) = problem(res).await;
    assert_eq!(status, 429, "{p}");
    // The refusals are logged with the client address.
    let refused = |l: &str| l.contains("operator login refused") && l.contains(atacante);
    m.giro.wait_for_line_where("the refused login", refused, Duration::from_secs(30)).await;
    let throttled = |l: &str| l.contains("throttled") && l.contains(atacante);
    m.giro.wait_for_line_where("the throttled login", throttled, Duration::from_secs(30)).await;

    // The operator from another address gets in.
    assert_eq!(m.entrar(SENHA, Some("198.51.100.1")).await.status(), 204);

    // A guess spread over many addresses (each under its own limit) locks the user name once
    // the failures of all addresses reach 6 (3 above, 3 here) ...
    for i in 0..3 {
        let ip = format!("192.0.2.{}", i / 2 + 10);
        assert_eq!(m.entrar("errada-456", Some(&ip)).await.status(), 401);
    }
    // ... for an address the operator never used ...
    let (status, _) = problem(m.entrar(SENHA, Some("192.0.2.99")).await).await;
    assert_eq!(status, 429);
    // ... but never for one they logged in from.
    assert_eq!(m.entrar(SENHA, Some("198.51.100.1")).await.status(), 204);

    // An untrusted peer cannot pick its address: X-Forwarded-For from elsewhere is ignored
    // (here the loopback peer is trusted, so it is the proxy's right-most entry that counts).
    assert_eq!(m.entrar(SENHA, Some(&format!("{atacante}, 198.51.100.1"))).await.status(), 204);
    m.sem_segredos();
}

#[tokio::test]
async fn without_trusted_proxies_x_forwarded_for_is_ignored() {
    let m = Real::start(Servico::Estoque, &[("GIRO_LOGIN_MAX_FALHAS_ENDERECO", "2")]).await;
    for i in 0..2 {
        let forjado = format!("10.9.9.{i}");
        assert_eq!(m.entrar("errada-123", Some(&forjado)).await.status(), 401);
    }
    // Both failures counted for the real peer (127.0.0.1), whatever the header said.
    let (status, _) = problem(m.entrar(SENHA, Some("10.9.9.200")).await).await;
    assert_eq!(status, 429);
    m.sem_segredos();
}
