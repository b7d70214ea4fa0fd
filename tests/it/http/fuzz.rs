//! Property (issue 13): random JSON and random bytes fed to the body, path and query extractors
//! of every route of both services (the event console `/operacao/outbox`, `/openapi.json` and
//! the health components too) — as anonymous, operator and peer service — never get a 5xx
//! and never a dropped connection. And (issue 25) through each web listener's `/api`: the routes
//! its pages call reach the API, and any other path, however spelled, is the listener's 404. A
//! hand-rolled generator (fastrand, seeded: the seed is printed, `GIRO_FUZZ_SEED` replays a run,
//! `GIRO_FUZZ_CASOS` sets the cases per service).

use serde_json::{json, Value};

use giro_servicos::config::Servico;

use crate::support::app::{spawn_app, Operador, TestApp};
use crate::support::process::scratch_dir;
use crate::support::real::Real;

#[derive(Clone, Copy)]
enum Quem {
    Anonimo,
    Operador,
    Servico,
}

/// `(method, path with `{}` for the segment, who)`.
const MERCADO: &[(&str, &str, Quem)] = &[
    ("GET", "/produtos", Quem::Anonimo),
    ("GET", "/produtos/{}", Quem::Anonimo),
    ("POST", "/produtos", Quem::Operador),
    ("POST", "/pedidos", Quem::Anonimo),
    ("GET", "/pedidos/{}", Quem::Anonimo),
    ("POST", "/pedidos/{}/pagamento", Quem::Anonimo),
    ("POST", "/eventos", Quem::Servico),
    ("POST", "/eventos/lote", Quem::Servico),
    ("POST", "/sessao", Quem::Anonimo),
    ("GET", "/sessao", Quem::Operador),
    ("GET", "/openapi.json", Quem::Anonimo),
    ("GET", "/operacao/produtos", Quem::Operador),
    ("PATCH", "/operacao/produtos/{}", Quem::Operador),
    ("GET", "/operacao/pedidos", Quem::Operador),
    ("GET", "/operacao/pedidos/{}", Quem::Operador),
    ("GET", "/operacao/estoque/produtos/{}", Quem::Operador),
    ("GET", "/{}", Quem::Anonimo),
];

const ESTOQUE: &[(&str, &str, Quem)] = &[
    ("GET", "/produtos/{}", Quem::Servico),
    ("POST", "/lotes", Quem::Operador),
    ("GET", "/painel/resumo", Quem::Operador),
    ("GET", "/painel/demandas", Quem::Operador),
    ("GET", "/painel/reposicoes", Quem::Operador),
    ("GET", "/painel/estoque", Quem::Operador),
    ("GET", "/painel/estoque/{}", Quem::Operador),
    ("POST", "/painel/estoque/{}/lotes/{}/baixa", Quem::Operador),
    ("POST", "/eventos", Quem::Servico),
    ("POST", "/eventos/lote", Quem::Servico),
    ("POST", "/sessao", Quem::Anonimo),
    ("GET", "/openapi.json", Quem::Anonimo),
    ("DELETE", "/{}", Quem::Operador),
];

/// The health routes, on both services, anonymous: `/actuator/health/{componente}` answers its
/// known components and 404s the rest (issue 25).
const SAUDE: &[(&str, &str, Quem)] = &[
    ("GET", "/actuator/health/{}", Quem::Anonimo),
    ("GET", "/actuator/health", Quem::Anonimo),
    ("GET", "/healthz", Quem::Anonimo),
    ("GET", "/readyz", Quem::Anonimo),
];

/// A readiness or health route's 503 `DOWN` is its contract, not an answer to the input: it
/// reports the database as it is now, and on a loaded machine the database may not answer the
/// probe within its 2 s. Every other 5xx fails the property.
fn relata_o_banco(caminho: &str, status: u16, body: &str) -> bool {
    let saude = caminho.starts_with("/readyz") || caminho.starts_with("/actuator/health");
    saude && status == 503 && body.contains("\"DOWN\"")
}

/// The event console (`outbox::console`), on both services, as the operator.
const CONSOLE: &[(&str, &str, Quem)] = &[
    ("GET", "/operacao/outbox", Quem::Operador),
    ("GET", "/operacao/outbox/eventos", Quem::Operador),
    ("POST", "/operacao/outbox/eventos/{}/reenvio", Quem::Operador),
    ("POST", "/operacao/outbox/reenvio", Quem::Operador),
    ("DELETE", "/operacao/outbox/eventos/{}", Quem::Operador),
    ("GET", "/operacao/outbox/eventos/{}", Quem::Operador),
    ("POST", "/operacao/outbox/eventos/{}/refazer", Quem::Operador),
    ("POST", "/operacao/outbox/descarte", Quem::Operador),
];

fn texto(r: &mut fastrand::Rng) -> String {
    let n = match r.u8(..10) {
        0 => r.usize(200..5000),
        _ => r.usize(0..20),
    };
    (0..n)
        .map(|_| match r.u8(..12) {
            0 => '\0',
            1 => char::from_u32(r.u32(0x80..0xD7FF)).unwrap_or('é'),
            2 => ['%', '_', '\'', '"', '\\', '/', '\n'][r.usize(..7)],
            _ => r.alphanumeric(),
        })
        .collect()
}

fn numero(r: &mut fastrand::Rng) -> Value {
    match r.u8(..8) {
        0 => json!(i64::MAX),
        1 => json!(i32::MAX),
        2 => json!(-1),
        3 => json!(0),
        4 => json!(r.f64() * 1e12),
        5 => serde_json::from_str("1e400").unwrap_or(json!(1)),
        6 => json!(u64::MAX),
        _ => json!(r.i32(1..100)),
    }
}

fn valor(r: &mut fastrand::Rng, fundo: u32) -> Value {
    match r.u8(..if fundo > 3 { 5 } else { 8 }) {
        0 => Value::Null,
        1 => json!(r.bool()),
        2 | 3 => numero(r),
        4 => json!(texto(r)),
        5 => Value::Array((0..r.usize(..6)).map(|_| valor(r, fundo + 1)).collect()),
        _ => {
            let chaves = [
                "sku",
                "qtd",
                "itens",
                "nome",
                "preco",
                "estoqueMinimo",
                "estoqueIdeal",
                "descricao",
                "ncm",
                "codigoLote",
                "quantidade",
                "validade",
                "eventId",
                "correlationId",
                "tags",
                "categoria",
                "ocorridoEm",
                "lote",
                "motivo",
                "qtdFaltante",
                "eventos",
                "tipo",
                "evento",
            ];
            let mut m = serde_json::Map::new();
            for _ in 0..r.usize(..8) {
                let k = if r.u8(..6) == 0 { texto(r) } else { chaves[r.usize(..chaves.len())].to_string() };
                m.insert(k, valor(r, fundo + 1));
            }
            Value::Object(m)
        }
    }
}

/// A plausible body with one field made hostile: reaches past the parser into the rules.
fn quase_valido(r: &mut fastrand::Rng) -> Value {
    let id = uuid::Uuid::new_v4().to_string();
    let mut base = match r.u8(..6) {
        0 => json!({"itens": [{"sku": "7894900011517", "qtd": 1}]}),
        1 => {
            json!({"sku": "7894900011517", "nome": "Coca", "preco": 8.99, "estoqueMinimo": 1, "estoqueIdeal": 2})
        }
        2 => {
            json!({"sku": "7894900011517", "descricao": "COCA", "ncm": "22021000", "codigoLote": "L1", "quantidade": 5, "validade": "2030-01-01"})
        }
        3 => {
            json!({"eventId": id, "correlationId": id, "sku": "7894900011517", "qtd": 3, "lote": "L1", "ocorridoEm": "2026-01-01T00:00:00Z"})
        }
        4 => {
            json!({"eventId": id, "sku": "7894900011517", "tags": ["a"], "categoria": "bebidas", "ocorridoEm": "2026-01-01T00:00:00Z"})
        }
        _ => {
            json!({"eventId": id, "sku": "7894900011517", "qtdFaltante": 3, "ocorridoEm": "2026-01-01T00:00:00Z"})
        }
    };
    if let Value::Object(m) = &mut base {
        let chaves: Vec<String> = m.keys().cloned().collect();
        let k = &chaves[r.usize(..chaves.len())];
        m.insert(k.clone(), valor(r, 2));
    }
    base
}

/// `conhecidos`: ids that exist (dead letters the console can replay or discard), so some cases
/// reach past the lookup.
fn segmento(r: &mut fastrand::Rng, conhecidos: &[String]) -> String {
    match r.u8(..6) {
        0 => uuid::Uuid::new_v4().to_string(),
        5 if !conhecidos.is_empty() => conhecidos[r.usize(..conhecidos.len())].clone(),
        1 => "7894900011517".into(),
        _ => {
            let n = if r.u8(..8) == 0 { r.usize(250..600) } else { r.usize(0..20) };
            (0..n).map(|_| format!("%{:02X}", r.u8(..))).collect()
        }
    }
}

fn query(r: &mut fastrand::Rng) -> String {
    if r.bool() {
        return String::new();
    }
    let chaves =
        ["busca", "categoria", "limite", "status", "tipo", "pagina", "tamanho", "forcar", "estado", "x"];
    let pares: Vec<String> = (0..r.usize(1..4))
        .map(|_| {
            let v: String = (0..r.usize(..12)).map(|_| format!("%{:02X}", r.u8(..))).collect();
            format!("{}={v}", chaves[r.usize(..chaves.len())])
        })
        .collect();
    format!("?{}", pares.join("&"))
}

async fn rodar(
    app: &TestApp,
    rotas: &[(&str, &str, Quem)],
    op: &Operador,
    r: &mut fastrand::Rng,
    casos: usize,
    conhecidos: &[String],
) {
    for i in 0..casos {
        let (metodo, molde, quem) = rotas[r.usize(..rotas.len())];
        let caminho = format!("{}{}", molde.replace("{}", &segmento(r, conhecidos)), query(r));
        let metodo = reqwest::Method::from_bytes(metodo.as_bytes()).unwrap();
        let mut rb = app.http.request(metodo.clone(), app.url(&caminho));
        rb = match quem {
            Quem::Anonimo => rb,
            Quem::Operador => op.on(rb),
            Quem::Servico => app.as_servico(rb),
        };
        if caminho.starts_with("/eventos") {
            let tipos = [
                "ReposicaoEnviada",
                "ReposicaoNegada",
                "ProdutoClassificado",
                "ReposicaoSolicitada",
                "x\u{7f}",
            ];
            rb = rb.header("evento-tipo", tipos[r.usize(..tipos.len())].replace('\u{7f}', ""));
        }
        let (corpo, tipo): (Vec<u8>, &str) = match r.u8(..6) {
            0 => ((0..r.usize(..300)).map(|_| r.u8(..)).collect(), "application/json"),
            1 => (valor(r, 0).to_string().into_bytes(), "text/plain"),
            2 | 3 => (valor(r, 0).to_string().into_bytes(), "application/json"),
            4 if caminho.starts_with("/eventos/lote") => {
                let itens: Vec<Value> = (0..r.usize(..4))
                    .map(|_| json!({"tipo": "ReposicaoSolicitada", "evento": quase_valido(r)}))
                    .collect();
                (json!({ "eventos": itens }).to_string().into_bytes(), "application/json")
            }
            _ => (quase_valido(r).to_string().into_bytes(), "application/json"),
        };
        if metodo != reqwest::Method::GET {
            rb = rb.header("content-type", tipo).body(corpo);
        }
        let res = rb.send().await.unwrap_or_else(|e| panic!("case {i}: {caminho}: connection failed: {e}"));
        let status = res.status();
        let body = res.text().await.unwrap_or_default();
        assert!(
            status.as_u16() < 500 || relata_o_banco(&caminho, status.as_u16(), &body),
            "case {i}: {caminho}: {status} {body}"
        );
        for rust in ["struct ", "Vec<", "Option<", "alloc::", "core::"] {
            assert!(!body.contains(rust), "case {i}: {caminho}: a Rust type in {body}");
        }
    }
}

#[tokio::test]
async fn random_json_and_bytes_on_every_route_never_get_a_5xx() {
    let seed = std::env::var("GIRO_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| fastrand::u64(..));
    let casos = std::env::var("GIRO_FUZZ_CASOS").ok().and_then(|s| s.parse().ok()).unwrap_or(400);
    eprintln!("seguranca_fuzz: GIRO_FUZZ_SEED={seed} GIRO_FUZZ_CASOS={casos}");
    let mut r = fastrand::Rng::with_seed(seed);
    let longe = [
        ("ESTOQUE_URL", "http://127.0.0.1:9"),
        ("GIRO_ESTOQUE_TIMEOUT", "200ms"),
        ("TAG_WORKER_URL", "http://127.0.0.1:9"),
        ("GIRO_TAGS_TIMEOUT", "200ms"),
        ("GIRO_LOGIN_MAX_FALHAS_ENDERECO", "1000000"),
        ("GIRO_LOGIN_MAX_FALHAS_USUARIO", "1000000"),
    ];
    let e = spawn_app(Servico::Estoque, &longe).await;
    // mercado's lookups (`/operacao/estoque/produtos/{sku}`) reach the real estoque: a 503 there
    // would be the peer's absence, not an answer to the input.
    let estoque_url = e.url("");
    let mut perto = longe.to_vec();
    perto.retain(|(k, _)| *k != "ESTOQUE_URL");
    perto.push(("ESTOQUE_URL", &estoque_url));
    let m = spawn_app(Servico::Mercado, &perto).await;
    let (om, oe) = (Operador::login(&m).await, Operador::login(&e).await);
    m.dbh
        .client()
        .await
        .unwrap()
        .batch_execute(
            "INSERT INTO produto_vitrine (sku, nome, preco, estoque_prateleira, estoque_minimo, estoque_ideal, status) \
             VALUES ('7894900011517', 'Coca', 8.99, 100, 1, 100, 'DISPONIVEL')",
        )
        .await
        .unwrap();
    let mut conhecidos = Vec::new();
    for app in [&m, &e] {
        // Dead letters, one of them older than `inbox.retencao` (its replay needs `forcar`).
        for idade in [0, 0, 30] {
            let id = uuid::Uuid::new_v4();
            app.dbh
                .client()
                .await
                .unwrap()
                .execute(
                    "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, proxima_tentativa_em, tentativas, ultimo_erro) \
                     VALUES ($1, 'ReposicaoSolicitada', '{\"sku\":\"7894900011517\"}', 'FAILED', now() - make_interval(days => $2), now(), 3, 'x')",
                    &[&id, &idade],
                )
                .await
                .unwrap();
            conhecidos.push(id.to_string());
        }
    }
    let (mercado, estoque) = ([MERCADO, CONSOLE, SAUDE].concat(), [ESTOQUE, CONSOLE, SAUDE].concat());
    rodar(&m, &mercado, &om, &mut r, casos, &conhecidos).await;
    rodar(&e, &estoque, &oe, &mut r, casos, &conhecidos).await;
}

/// The 404 of a web listener for what it does not forward (`giro_http::web`).
const FORA_DA_LISTA: &str = "recurso não encontrado";

/// First segments no page calls: whatever follows, the web listener must not forward them.
const PROIBIDOS: &[&str] =
    &["metrics", "eventos", "openapi.json", "actuator/env", "painel/x", "lotes/1", "operacao/x", "METRICS"];

/// A spelling of `caminho` a client might try to slip past a list: doubled slashes,
/// percent-encoded letters, a trailing slash, dot segments.
fn disfarce(r: &mut fastrand::Rng, caminho: &str) -> String {
    match r.u8(..6) {
        0 => caminho.replace('/', "//"),
        1 => {
            caminho
                .chars()
                .map(|c| {
                    if c.is_ascii_lowercase() && r.bool() {
                        format!("%{:02x}", c as u8)
                    } else {
                        c.to_string()
                    }
                })
                .collect()
        }
        2 => format!("{caminho}/"),
        3 => format!("/produtos/..{caminho}"),
        4 => format!("/.{caminho}"),
        _ => caminho.to_string(),
    }
}

async fn rodar_web(web: std::net::SocketAddr, servico: Servico, r: &mut fastrand::Rng, casos: usize) {
    let http = reqwest::Client::builder().timeout(std::time::Duration::from_secs(30)).build().unwrap();
    let rotas = giro_servicos::server::rotas_web(servico);
    let metodos = ["GET", "POST", "DELETE", "PUT", "PATCH", "HEAD"];
    for i in 0..casos {
        let (metodo, caminho, permitido) = if r.bool() {
            let (m, molde) = &rotas[r.usize(..rotas.len())];
            // A segment a template's parameter takes: never empty, never a slash.
            let mut seg = segmento(r, &[]);
            if seg.is_empty() {
                seg = "x".into();
            }
            let mut caminho = molde.to_string();
            while let (Some(a), Some(b)) = (caminho.find('{'), caminho.find('}')) {
                caminho.replace_range(a..=b, &seg);
            }
            // A segment longer than a file name (255) is refused by the listener itself: no route
            // the pages call takes one.
            (m.as_str().to_string(), caminho, !molde.contains('{') || seg.len() <= 255)
        } else {
            let base = format!("/{}", PROIBIDOS[r.usize(..PROIBIDOS.len())]);
            let resto = if r.bool() { format!("/{}", segmento(r, &[])) } else { String::new() };
            let caminho = disfarce(r, &format!("{base}{resto}"));
            (metodos[r.usize(..metodos.len())].to_string(), caminho, false)
        };
        let url = format!("http://{web}/api{caminho}{}", query(r));
        let metodo_http = reqwest::Method::from_bytes(metodo.as_bytes()).unwrap();
        let mut rb = http.request(metodo_http.clone(), &url);
        if metodo_http != reqwest::Method::GET && metodo_http != reqwest::Method::HEAD {
            rb = rb.header("content-type", "application/json").body(quase_valido(r).to_string());
        }
        let res =
            rb.send().await.unwrap_or_else(|e| panic!("case {i}: {metodo} {url}: connection failed: {e}"));
        let status = res.status().as_u16();
        let body = res.text().await.unwrap_or_default();
        assert!(
            status < 500 || relata_o_banco(&caminho, status, &body),
            "case {i}: {metodo} {url}: {status} {body}"
        );
        if permitido {
            assert!(
                !body.contains(FORA_DA_LISTA),
                "case {i}: {metodo} {url}: a listed route refused: {body}"
            );
        } else {
            assert_eq!(status, 404, "case {i}: {metodo} {url} went through: {body}");
            assert!(metodo == "HEAD" || body.contains(FORA_DA_LISTA), "case {i}: {metodo} {url}: {body}");
        }
    }
}

#[tokio::test]
async fn through_a_web_listener_only_its_pages_routes_reach_the_api() {
    let seed = std::env::var("GIRO_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| fastrand::u64(..));
    let casos = std::env::var("GIRO_FUZZ_CASOS").ok().and_then(|s| s.parse().ok()).unwrap_or(400);
    eprintln!("seguranca_fuzz (web): GIRO_FUZZ_SEED={seed} GIRO_FUZZ_CASOS={casos}");
    let mut r = fastrand::Rng::with_seed(seed);
    let dist = scratch_dir();
    std::fs::write(dist.join("index.html"), "<!doctype html><title>giro</title>").unwrap();
    let dir = dist.display().to_string();
    for (servico, porta, pasta, frente) in [
        (Servico::Mercado, "GIRO_WEB_PORTA_VITRINE", "GIRO_WEB_DIR_VITRINE", "storefront"),
        (Servico::Estoque, "GIRO_WEB_PORTA_PAINEL", "GIRO_WEB_DIR_PAINEL", "dashboard"),
    ] {
        let mut real = Real::start(servico, &[(porta, "0"), (pasta, &dir)]).await;
        let needle = format!("serves the {frente} on http://");
        let linha = real.giro.wait_for_line(&needle, std::time::Duration::from_secs(30)).await;
        let inicio = linha.find(&needle).unwrap() + needle.len();
        let web: String = linha[inicio..].chars().take_while(|c| !c.is_whitespace()).collect();
        rodar_web(web.parse().unwrap(), servico, &mut r, casos).await;
        real.sem_segredos();
    }
}
