//! Operator sessions in the service's database (issue 16): any replica serves any request, the
//! table holds a hash and never the id, logout and a password change hold everywhere, the cookies
//! are the original's, and expired sessions are purged in batches by concurrent replicas. Issue
//! 25: a password change deletes the old credentials' sessions (a revert revives none), and a
//! cookie's id is signed, so a forged one costs the database nothing.

use std::time::Duration;

use giro_http::auth::sessao;
use giro_http::limite::contadores_pg::purgar_contadores;
use giro_servicos::config::Servico;
use tokio_util::sync::CancellationToken;

use crate::support::app::{spawn_app, spawn_replica, Operador};
use crate::support::real::Real;

/// The throttling counters: their rows, and the count `http.max-contadores` reads
/// (`contador_limite_total`), which must agree.
pub(super) async fn contagens(c: &tokio_postgres::Client) -> (i64, i64) {
    let r = c
        .query_one(
            "SELECT (SELECT count(*) FROM contador_limite), \
                    (SELECT sum(n)::bigint FROM contador_limite_total)",
            &[],
        )
        .await
        .expect("counts");
    (r.get::<_, i64>(0), r.get::<_, i64>(1))
}

async fn sessao(http: &reqwest::Client, url: String, op: &Operador) -> u16 {
    op.on(http.get(url)).send().await.expect("GET /sessao").status().as_u16()
}

#[tokio::test]
async fn a_session_opened_on_one_replica_is_served_by_another_and_logout_ends_it_on_both() {
    let a = spawn_app(Servico::Estoque, &[]).await;
    let b = spawn_replica(&a, &[]).await;
    let op = Operador::login(&a).await;

    // B never saw the login: it finds the session in the database.
    let res = op.on(a.http.get(b.url("/sessao"))).send().await.expect("GET");
    assert_eq!(res.status(), 200);
    let body: serde_json::Value = res.json().await.expect("json");
    assert_eq!(body["usuario"], crate::support::OPERADOR);
    let res = op.on(a.http.get(b.url("/painel/resumo"))).send().await.expect("GET");
    assert_eq!(res.status(), 200, "a protected route on the other replica");

    // The table holds a hash of the id, never the id itself.
    let id = op
        .cookie
        .split("; ")
        .find_map(|kv| kv.strip_prefix("ESTOQUE_SESSAO="))
        .expect("session cookie")
        .to_string();
    let c = a.db.client().await;
    let rows = c
        .query(
            "SELECT id_hash, usuario, criada_em <= vista_em, expira_em - criada_em FROM sessao_operador",
            &[],
        )
        .await
        .expect("sessions");
    assert_eq!(rows.len(), 1);
    let hash: Vec<u8> = rows[0].get(0);
    assert_eq!(hash.len(), 32, "SHA-256");
    assert!(!String::from_utf8_lossy(&hash).contains(&id) && hash != id.as_bytes());
    let text: String = c
        .query_one("SELECT string_agg(t::text, '') FROM sessao_operador t", &[])
        .await
        .expect("row text")
        .get(0);
    assert!(!text.contains(&id), "the session id is not stored in any form: {text}");
    assert_eq!(rows[0].get::<_, String>(1), crate::support::OPERADOR);
    assert!(rows[0].get::<_, bool>(2));

    // Logout through B ends it on A too.
    let res = op.on(a.http.delete(b.url("/sessao"))).send().await.expect("DELETE");
    assert_eq!(res.status(), 204);
    assert_eq!(sessao(&a.http, a.url("/sessao"), &op).await, 401);
    assert_eq!(op.on(a.http.get(a.url("/painel/resumo"))).send().await.expect("GET").status(), 401);
    let n: i64 = c.query_one("SELECT count(*) FROM sessao_operador", &[]).await.expect("count").get(0);
    assert_eq!(n, 0, "logout deletes the row");
}

#[tokio::test]
async fn cookies_keep_the_original_names_and_attributes_and_csrf_stays_double_submit() {
    let a = spawn_app(Servico::Mercado, &[]).await;
    let csrf = uuid::Uuid::new_v4().to_string();
    let res = a
        .http
        .post(a.url("/sessao"))
        .header("cookie", format!("XSRF-MERCADO={csrf}"))
        .header("x-xsrf-token", &csrf)
        .form(&[("usuario", crate::support::OPERADOR), ("senha", crate::support::SENHA)])
        .send()
        .await
        .expect("login");
    assert_eq!(res.status(), 204);
    let cookies: Vec<String> =
        res.headers().get_all("set-cookie").iter().map(|v| v.to_str().expect("ascii").to_string()).collect();
    assert_eq!(cookies.len(), 2, "{cookies:?}");
    let sessao = cookies.iter().find(|c| c.starts_with("MERCADO_SESSAO=")).expect("session cookie");
    let valor = &sessao["MERCADO_SESSAO=".len()..sessao.find(';').expect(";")];
    // The id (64 hex) and its MAC (32 hex): `<id>.<mac>`.
    let (id, mac) = valor.split_once('.').expect("a signed id");
    assert_eq!((id.len(), mac.len()), (64, 32), "{valor}");
    assert!(valor.bytes().all(|b| b == b'.' || b.is_ascii_hexdigit()), "{valor}");
    assert_eq!(sessao, &format!("MERCADO_SESSAO={valor}; Path=/; Max-Age=28800; HttpOnly; SameSite=Strict"));
    let xsrf = cookies.iter().find(|c| c.starts_with("XSRF-MERCADO=")).expect("csrf cookie");
    assert!(xsrf.ends_with("; Path=/; SameSite=Strict") && !xsrf.contains("HttpOnly"), "{xsrf}");

    // Without the CSRF double submit a logged-in operator still gets 403 on a write.
    let res = a
        .http
        .delete(a.url("/sessao"))
        .header("cookie", format!("MERCADO_SESSAO={valor}"))
        .send()
        .await
        .expect("DELETE");
    assert_eq!(res.status(), 403);
    // Any value works when cookie == header (the original's SPA mode), on any replica.
    let b = spawn_replica(&a, &[]).await;
    let any = uuid::Uuid::new_v4().to_string();
    let res = a
        .http
        .delete(b.url("/sessao"))
        .header("cookie", format!("MERCADO_SESSAO={valor}; XSRF-MERCADO={any}"))
        .header("x-xsrf-token", &any)
        .send()
        .await
        .expect("DELETE");
    assert_eq!(res.status(), 204);
    let res = a
        .http
        .get(a.url("/sessao"))
        .header("cookie", format!("MERCADO_SESSAO={valor}"))
        .send()
        .await
        .expect("GET");
    assert_eq!(res.status(), 401);
}

#[tokio::test]
async fn a_password_change_ends_every_earlier_session_and_junk_cookies_are_anonymous() {
    let a = spawn_app(Servico::Estoque, &[]).await;
    let op = Operador::login(&a).await;
    assert_eq!(sessao(&a.http, a.url("/sessao"), &op).await, 200);
    // The same database, the operator's password changed (the replicas restarted with it).
    let nova = spawn_replica(&a, &[("OPERADOR_SENHA", "uma-senha-nova-bem-longa")]).await;
    assert_eq!(sessao(&a.http, nova.url("/sessao"), &op).await, 401);
    assert_eq!(op.on(a.http.get(nova.url("/painel/demandas"))).send().await.expect("GET").status(), 401);

    for junk in [
        "x",
        "' OR 1=1 --",
        &"f".repeat(64),
        &format!("{}.{}", "f".repeat(64), "0".repeat(32)),
        &"a".repeat(5000),
    ] {
        let res = a
            .http
            .get(a.url("/sessao"))
            .header("cookie", format!("ESTOQUE_SESSAO={junk}"))
            .send()
            .await
            .expect("GET");
        assert_eq!(res.status(), 401, "{junk:.20}");
    }
}

#[tokio::test]
async fn expired_sessions_are_refused_and_purged_in_batches_by_concurrent_replicas() {
    let a = spawn_app(Servico::Mercado, &[("GIRO_SESSAO_TTL", "1s")]).await;
    let op = Operador::login(&a).await;
    let c = a.db.client().await;
    // 1 234 expired sessions beside 3 live ones.
    c.execute(
        "INSERT INTO sessao_operador (id_hash, usuario, criada_em, vista_em, expira_em) \
         SELECT sha256(g::text::bytea), 'operador', now() - interval '9 h', now() - interval '9 h', now() - interval '1 h' \
           FROM generate_series(1, 1234) g",
        &[],
    )
    .await
    .expect("expired rows");
    c.execute(
        "INSERT INTO sessao_operador (id_hash, usuario, expira_em) \
         SELECT sha256(('vivo' || g)::bytea), 'operador', now() + interval '1 h' FROM generate_series(1, 3) g",
        &[],
    )
    .await
    .expect("live rows");
    // The login's own session expires after 1 s: refused from then on.
    crate::support::wait_until(Duration::from_secs(10), "the session to expire", || async {
        (sessao(&a.http, a.url("/sessao"), &op).await == 401).then_some(())
    })
    .await;

    let pool = a.db.pool();
    let stop = CancellationToken::new();
    let (x, y) = tokio::join!(
        sessao::purgar_expiradas(&pool, 100, &stop),
        sessao::purgar_expiradas(&pool, 100, &stop)
    );
    let (x, y) = (x.expect("purge"), y.expect("purge"));
    assert_eq!(x + y, 1235, "each expired row deleted once ({x} + {y})");
    let rest: i64 = c.query_one("SELECT count(*) FROM sessao_operador", &[]).await.expect("count").get(0);
    assert_eq!(rest, 3, "live sessions stay");
}

#[tokio::test]
async fn the_service_s_purge_loop_removes_expired_sessions_by_itself() {
    let a = spawn_app(Servico::Estoque, &[]).await;
    let c = a.db.client().await;
    c.execute(
        "INSERT INTO sessao_operador (id_hash, usuario, expira_em) \
         SELECT sha256(g::text::bytea), 'operador', now() - interval '1 s' FROM generate_series(1, 50) g",
        &[],
    )
    .await
    .expect("expired rows");
    let seg = giro_servicos::server::seguranca(&a.config, Servico::Estoque, &a.dbh.pool).expect("security");
    let stop = CancellationToken::new();
    let job = tokio::spawn(sessao::limpar_sessoes(
        seg,
        Duration::from_millis(100),
        7,
        stop.clone(),
        giro_infra::supervisor::Vivo::detached("limpeza-sessoes"),
    ));
    crate::support::wait_until(Duration::from_secs(10), "the purge", || async {
        let n: i64 = c.query_one("SELECT count(*) FROM sessao_operador", &[]).await.ok()?.get(0);
        (n == 0).then_some(())
    })
    .await;
    stop.cancel();
    job.await.expect("purge loop stops on shutdown");
}

#[tokio::test]
async fn while_the_database_is_down_a_session_is_neither_accepted_nor_refused_but_open_routes_answer() {
    let a = spawn_app(Servico::Estoque, &[("GIRO_DB_TIMEOUT", "1s")]).await;
    let op = Operador::login(&a).await;
    // The database goes away (every connection of the test database is closed and new ones refused).
    let admin = crate::support::db::admin().await;
    admin
        .batch_execute(&format!("ALTER DATABASE {} WITH ALLOW_CONNECTIONS false", a.db.name))
        .await
        .expect("refuse connections");
    admin
        .execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", &[&a.db.name])
        .await
        .expect("terminate");
    let res = op.on(a.http.get(a.url("/painel/resumo"))).send().await.expect("GET");
    assert_eq!(res.status(), 503, "not 401: the operator is not logged out by an outage");
    assert_eq!(sessao(&a.http, a.url("/sessao"), &op).await, 503);
    let res = op.on(a.http.get(a.url("/healthz"))).send().await.expect("GET");
    assert_eq!(res.status(), 200, "open routes answer with a session cookie too");
    admin
        .batch_execute(&format!("ALTER DATABASE {} WITH ALLOW_CONNECTIONS true", a.db.name))
        .await
        .expect("allow connections");
    crate::support::wait_until(Duration::from_secs(20), "the session back", || async {
        (sessao(&a.http, a.url("/sessao"), &op).await == 200).then_some(())
    })
    .await;
}

#[tokio::test]
async fn throttling_counters_are_shared_by_replicas_and_purged_when_their_window_ends() {
    // Six logins (each a password check) must fit in one window on a loaded debug build.
    let limites = [("GIRO_LOGIN_MAX_FALHAS_ENDERECO", "4"), ("GIRO_LOGIN_JANELA", "10s")];
    let a = spawn_app(Servico::Mercado, &limites).await;
    let b = spawn_replica(&a, &limites).await;
    let falha = |url: String| {
        let http = a.http.clone();
        async move {
            http.post(url)
                .header("cookie", "XSRF-MERCADO=t")
                .header("x-xsrf-token", "t")
                .form(&[("usuario", crate::support::OPERADOR), ("senha", "errada-errada")])
                .send()
                .await
                .expect("login")
                .status()
                .as_u16()
        }
    };
    // Two failures on each replica: the fifth attempt, on either, is over the limit of four.
    for url in [a.url("/sessao"), b.url("/sessao"), a.url("/sessao"), b.url("/sessao")] {
        assert_eq!(falha(url).await, 401);
    }
    assert_eq!(falha(a.url("/sessao")).await, 429);
    assert_eq!(falha(b.url("/sessao")).await, 429);
    let c = a.db.client().await;
    let n: i32 = c
        .query_one("SELECT n FROM contador_limite WHERE chave = 'login:ip:127.0.0.1'", &[])
        .await
        .expect("the address's counter is a row")
        .get(0);
    // Four attempts counted; the refused ones leave it locked at the limit + 1 without growing.
    assert_eq!(n, 5);
    // Past the window the address may try again, and the purge removes the rows.
    crate::support::wait_until(Duration::from_secs(30), "the window to end", || async {
        (falha(b.url("/sessao")).await == 401).then_some(())
    })
    .await;
    crate::support::wait_until(Duration::from_secs(10), "expired counters", || async {
        let n: i64 =
            c.query_one("SELECT count(*) FROM contador_limite WHERE fim <= now()", &[]).await.ok()?.get(0);
        (n > 0).then_some(())
    })
    .await;
    let n = purgar_contadores(&a.db.pool(), 1, &CancellationToken::new()).await.expect("purge");
    assert!(n >= 1);
    let vencidos: i64 =
        c.query_one("SELECT count(*) FROM contador_limite WHERE fim <= now()", &[]).await.expect("n").get(0);
    assert_eq!(vencidos, 0);
}

/// Issue 25: after a password change (the service restarted with it) the old credentials'
/// sessions are deleted, not only unknown: reverting the password does not bring a stolen
/// cookie back.
#[tokio::test]
async fn a_reverted_password_does_not_revive_an_old_cookie() {
    let mut m = Real::start(Servico::Mercado, &[]).await;
    let (cookie, _) = m.operador().await;
    let get = |m: &Real| {
        let (http, url, cookie) = (m.http.clone(), m.url("/sessao"), cookie.clone());
        async move { http.get(url).header("cookie", cookie).send().await.expect("GET").status().as_u16() }
    };
    assert_eq!(get(&m).await, 200);
    let nova = "uma-senha-nova-bem-longa";
    m.reiniciar(&[("OPERADOR_SENHA", nova)]).await;
    assert_eq!(get(&m).await, 401);
    // The start's purge round deletes the sessions of the old credentials.
    let c = m.db.client().await;
    crate::support::wait_until(Duration::from_secs(30), "the old sessions deleted", || async {
        let n: i64 = c.query_one("SELECT count(*) FROM sessao_operador", &[]).await.ok()?.get(0);
        (n == 0).then_some(())
    })
    .await;
    m.giro.wait_for_line("sessions of other operator credentials deleted", Duration::from_secs(30)).await;
    // The password reverted: the old cookie stays refused.
    m.reiniciar(&[]).await;
    assert_eq!(get(&m).await, 401);
    let (cookie2, _) = m.operador().await;
    let res = m.http.get(m.url("/sessao")).header("cookie", cookie2).send().await.expect("GET");
    assert_eq!(res.status(), 200, "new logins work");
    m.sem_segredos();
}

/// Issue 25: a well-formed cookie with a wrong MAC is refused with no query. Measured two ways:
/// with the database cut, a route that needs the operator answers 401 (a lookup would have been
/// a 503); with it up, 2 000 requests carrying the forged cookie add (almost) nothing to the
/// database's committed transactions (before signing: two per request).
#[tokio::test]
async fn a_forged_cookie_costs_the_database_nothing() {
    let (m, proxy) = Real::start_com_proxy(Servico::Estoque, &[("GIRO_DB_TIMEOUT", "2s")]).await;
    let forjado = format!("ESTOQUE_SESSAO={}.{}", "ab".repeat(32), "0".repeat(32));
    let c = m.db.client().await;
    // A backend's statistics reach pg_stat_database when it flushes them, at the latest when it
    // exits: the service's connections are ended (it opens new ones when it needs them) and
    // the count read once they are gone.
    let commits = || async {
        let pids: Vec<i32> = c
            .query(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
                &[],
            )
            .await
            .expect("backends")
            .iter()
            .map(|r| r.get(0))
            .collect();
        c.execute("SELECT pg_terminate_backend(p) FROM unnest($1::int[]) p", &[&pids])
            .await
            .expect("terminate");
        crate::support::wait_until(Duration::from_secs(30), "the service's backends gone", || async {
            let n: i64 = c
                .query_one("SELECT count(*) FROM pg_stat_activity WHERE pid = ANY($1)", &[&pids])
                .await
                .ok()?
                .get(0);
            (n == 0).then_some(())
        })
        .await;
        c.batch_execute("SELECT pg_stat_clear_snapshot()").await.expect("clear");
        c.query_one("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()", &[])
            .await
            .expect("stats")
            .get::<_, i64>(0)
    };
    let antes = commits().await;
    for _ in 0..2000 {
        let res = m.http.get(m.url("/healthz")).header("cookie", &forjado).send().await.expect("GET");
        assert_eq!(res.status(), 200);
    }
    let delta = commits().await - antes;
    eprintln!("2000 requests with a forged cookie: {delta} transactions committed on the database");
    assert!(delta < 200, "{delta} transactions for 2000 forged cookies (a lookup each would be 2000+)");

    proxy.cut();
    let res = m.http.get(m.url("/painel/resumo")).header("cookie", &forjado).send().await.expect("GET");
    assert_eq!(res.status(), 401, "refused without a lookup (a lookup would be 503 now)");
    let res = m.http.get(m.url("/sessao")).header("cookie", &forjado).send().await.expect("GET");
    assert_eq!(res.status(), 401);
    proxy.restore();
    m.sem_segredos();
}

/// Issue 25: the counters' row count that `http.max-contadores` reads stays exact while
/// concurrent purges (every replica runs one) delete batches, and they never deadlock on it.
#[tokio::test]
async fn concurrent_counter_purges_keep_the_row_count_exact() {
    let a = spawn_app(Servico::Mercado, &[]).await;
    let c = a.db.client().await;
    c.execute(
        "INSERT INTO contador_limite (chave, n, fim) \
         SELECT 'login:ip:10.0.' || (g / 256) || '.' || (g % 256), 1, now() - interval '1 s' \
           FROM generate_series(1, 3000) g",
        &[],
    )
    .await
    .expect("expired counters");
    c.execute(
        "INSERT INTO contador_limite (chave, n, fim) \
         SELECT 'checkout:192.0.2.' || g, 1, now() + interval '1 h' FROM generate_series(1, 7) g",
        &[],
    )
    .await
    .expect("live counters");
    let inicio = contagens(&c).await;
    assert_eq!(inicio.0, inicio.1, "the count follows inserts");
    let pool = a.db.pool();
    let stop = CancellationToken::new();
    let (x, y, z) = tokio::join!(
        purgar_contadores(&pool, 50, &stop),
        purgar_contadores(&pool, 50, &stop),
        purgar_contadores(&pool, 50, &stop)
    );
    let (x, y, z) = (x.expect("purge"), y.expect("purge"), z.expect("purge"));
    assert_eq!(x + y + z, 3000, "each expired row deleted once");
    let (linhas, total) = contagens(&c).await;
    assert_eq!((linhas, total), (inicio.0 - 3000, inicio.0 - 3000));
}
