//! Configuration: layer precedence, validation of secrets with exit code 2, and no secret in
//! `Debug`.

use std::collections::BTreeMap;
use std::time::Duration;

use giro_servicos::config::{Config, Servico, Sources};

use crate::support::process::{command, scratch_dir, Giro};
use crate::support::{ESTOQUE_TOKEN, MERCADO_TOKEN, OPERADOR, SENHA};

fn sources(
    dir: &std::path::Path,
    env: &[(&str, &str)],
    flags: Vec<(&'static str, String, &'static str)>,
) -> Sources {
    Sources {
        file: None,
        cwd: dir.to_path_buf(),
        env: env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        flags,
    }
}

#[test]
fn each_layer_overrides_the_one_below_file_then_dotenv_then_env_then_flag() {
    let dir = scratch_dir();
    std::fs::create_dir_all(dir.join("config")).unwrap();
    std::fs::write(
        dir.join("config/giro.toml"),
        "[outbox]\nlote = 11\nintervalo = \"3s\"\nretencao = \"2d\"\nmax-tentativas = 7\n[mercado]\nporta = 1111\n",
    )
    .unwrap();
    std::fs::write(
        dir.join(".env"),
        "GIRO_OUTBOX_LOTE=22\nGIRO_OUTBOX_INTERVALO=4s\nGIRO_OUTBOX_RETENCAO=3d\nMERCADO_PORTA=2222\n",
    )
    .unwrap();

    let defaults = Config::load(&sources(&scratch_dir(), &[], vec![])).unwrap();
    assert_eq!(defaults.outbox.lote, 50);
    assert_eq!(defaults.outbox.intervalo, Duration::from_secs(1));
    assert_eq!(defaults.mercado.porta, 18080);
    assert_eq!(defaults.estoque.porta, 18081);
    assert_eq!(defaults.reserva.ttl, Duration::from_secs(15 * 60));
    // Issue 37 §3: every listener is local until the operator opens it (GIRO_HTTP_ENDERECO).
    assert_eq!(defaults.endereco, std::net::IpAddr::from([127, 0, 0, 1]));

    let c = Config::load(&sources(
        &dir,
        &[("GIRO_OUTBOX_LOTE", "33"), ("GIRO_OUTBOX_INTERVALO", "5s")],
        vec![("outbox.lote", "44".into(), "--lote")],
    ))
    .unwrap();
    assert_eq!(c.outbox.max_tentativas, Some(7), "file over default");
    assert_eq!(c.outbox.retencao, Duration::from_secs(3 * 86_400), ".env over file");
    assert_eq!(c.mercado.porta, 2222, ".env over file");
    assert_eq!(c.outbox.intervalo, Duration::from_secs(5), "env over .env");
    assert_eq!(c.outbox.lote, 44, "flag over env");
}

#[test]
fn variables_follow_the_naming_rule_and_old_names_still_work() {
    let dir = scratch_dir();
    let load = |env: &[(&str, &str)]| Config::load(&sources(&dir, env, vec![])).unwrap();
    // The derived names (GIRO_ + the key) and the names used before the rule.
    let c = load(&[
        ("GIRO_SESSAO_INTERVALO_LIMPEZA", "7s"),
        ("GIRO_RESERVA_LOTE", "9"),
        ("GIRO_MERCADO_PORTA", "3333"),
    ]);
    assert_eq!(c.sessao.intervalo_limpeza, Duration::from_secs(7));
    assert_eq!(c.reserva.lote_expiracao, 9);
    assert_eq!(c.mercado.porta, 3333, "the original's keys also answer to their derived name");
    let c = load(&[("GIRO_SESSAO_INTERVALO", "8s"), ("GIRO_TAGS_LOTE", "4")]);
    assert_eq!(c.sessao.intervalo_limpeza, Duration::from_secs(8));
    assert_eq!(c.tags.lote_reclassificacao, 4);
    // Several names of one key: the documented one wins, then the derived, then the old.
    let c = load(&[("GIRO_RESERVA_INTERVALO", "1s"), ("GIRO_RESERVA_INTERVALO_EXPIRACAO", "2s")]);
    assert_eq!(c.reserva.intervalo_expiracao, Duration::from_secs(2));
    let c = load(&[("MERCADO_PORTA", "1111"), ("GIRO_MERCADO_PORTA", "2222")]);
    assert_eq!(c.mercado.porta, 1111);
}

#[test]
fn an_explicit_config_file_replaces_the_default_location_and_must_exist() {
    let dir = scratch_dir();
    let file = dir.join("outro.toml");
    std::fs::write(&file, "[estoque]\nporta = 9191\n").unwrap();
    let mut src = sources(&dir, &[], vec![]);
    src.file = Some(file);
    assert_eq!(Config::load(&src).unwrap().estoque.porta, 9191);

    let mut missing = sources(&dir, &[], vec![]);
    missing.file = Some(dir.join("nao-existe.toml"));
    let err = Config::load(&missing).unwrap_err().to_string();
    assert!(err.contains("nao-existe.toml"), "{err}");
}

#[test]
fn bad_values_and_unknown_keys_are_named_in_the_error() {
    let dir = scratch_dir();
    let err =
        Config::load(&sources(&dir, &[("GIRO_OUTBOX_INTERVALO", "soon")], vec![])).unwrap_err().to_string();
    assert!(
        err.contains("outbox.intervalo") && err.contains("GIRO_OUTBOX_INTERVALO") && err.contains("soon"),
        "{err}"
    );

    std::fs::create_dir_all(dir.join("config")).unwrap();
    std::fs::write(dir.join("config/giro.toml"), "[outbox]\nlotes = 3\n").unwrap();
    let err = Config::load(&sources(&dir, &[], vec![])).unwrap_err().to_string();
    assert!(err.contains("unknown configuration key `outbox.lotes`"), "{err}");
}

#[test]
fn every_kind_of_key_refuses_a_bad_value_naming_key_variable_value_and_origin() {
    let dir = scratch_dir();
    for (var, valor, chave, porque) in [
        ("GIRO_OUTBOX_LOTE", "0", "outbox.lote", "must be positive"),
        ("GIRO_OUTBOX_LOTE", "muitos", "outbox.lote", "invalid digit"),
        ("GIRO_OUTBOX_MAX_TENTATIVAS", "-1", "outbox.max-tentativas", "must be positive"),
        ("GIRO_OUTBOX_TRANSPORTE", "pombo", "outbox.transporte", "pombo"),
        ("ESTOQUE_URL", "ftp://estoque", "estoque.url", "expected an http:// or https:// URL"),
        ("GIRO_HTTP_PROXIES_CONFIAVEIS", "10.0.0.1, talvez", "http.proxies-confiaveis", "\"talvez\" is not"),
        ("GIRO_PUBLISHER_PORTA_METRICAS", "70000", "publisher.porta-metricas", "too large"),
        ("GIRO_HTTP_COOKIES_SEGUROS", "sim", "http.cookies-seguros", "provided string was not"),
    ] {
        let err = Config::load(&sources(&dir, &[(var, valor)], vec![])).unwrap_err().to_string();
        let esperado = format!("invalid {chave} ({var}) = {valor:?} from env {var}: ");
        assert!(err.starts_with(&esperado) && err.contains(porque), "{var}={valor}: {err}");
    }
    // Optional keys: empty is unset.
    let c = Config::load(&sources(
        &dir,
        &[
            ("GIRO_OUTBOX_MAX_TENTATIVAS", ""),
            ("GIRO_PUBLISHER_PORTA_METRICAS", " "),
            ("GIRO_HTTP_PROXIES_CONFIAVEIS", ""),
        ],
        vec![],
    ))
    .unwrap();
    assert_eq!((c.outbox.max_tentativas, c.publisher_porta_metricas), (None, None));
    assert!(c.proxies_confiaveis.is_empty());
}

#[test]
fn jdbc_urls_and_separate_credentials_are_accepted() {
    let c = Config::load(&sources(
        &scratch_dir(),
        &[
            ("MERCADO_DB_URL", "jdbc:postgresql://db.local:5433/vitrine"),
            ("MERCADO_DB_USER", "app"),
            ("MERCADO_DB_PASSWORD", "s3cr3t-pw"),
        ],
        vec![],
    ))
    .unwrap();
    let pg = &c.db(Servico::Mercado).unwrap().pg;
    assert_eq!(pg.get_dbname(), Some("vitrine"));
    assert_eq!(pg.get_ports(), &[5433]);
    assert_eq!(pg.get_user(), Some("app"));
    assert_eq!(pg.get_password(), Some(&b"s3cr3t-pw"[..]));
    let debug = format!("{c:?}");
    assert!(!debug.contains("s3cr3t-pw"), "{debug}");
}

#[test]
fn debug_of_the_configuration_shows_no_secret() {
    let c = Config::load(&sources(
        &scratch_dir(),
        &[
            ("MERCADO_TOKEN_SERVICO", MERCADO_TOKEN),
            ("ESTOQUE_TOKEN_SERVICO", ESTOQUE_TOKEN),
            ("OPERADOR_USUARIO", OPERADOR),
            ("OPERADOR_SENHA", SENHA),
            ("TAG_WORKER_TOKEN", "tag-worker-token-123456"),
            ("ESTOQUE_DB_URL", "postgres://estoque:db-password-xyz@127.0.0.1:15432/estoque"),
        ],
        vec![],
    ))
    .unwrap();
    let debug = format!("{c:?} {:?}", c.operador().unwrap());
    for secret in [MERCADO_TOKEN, ESTOQUE_TOKEN, SENHA, "tag-worker-token-123456", "db-password-xyz"] {
        assert!(!debug.contains(secret), "{secret} in {debug}");
    }
}

/// Nothing listens on port 9: a role that got past its configuration would fail on connecting.
const MERCADO_URL: &str = "postgres://mercado:senha-do-banco@127.0.0.1:9/mercado";
const ESTOQUE_URL: &str = "postgres://estoque:senha-do-banco@127.0.0.1:9/estoque";

fn serve_env(without: &str, overrides: &[(&'static str, &str)]) -> BTreeMap<&'static str, String> {
    let mut env: BTreeMap<&str, String> = [
        ("MERCADO_TOKEN_SERVICO", MERCADO_TOKEN),
        ("ESTOQUE_TOKEN_SERVICO", ESTOQUE_TOKEN),
        ("OPERADOR_USUARIO", OPERADOR),
        ("OPERADOR_SENHA", SENHA),
        ("MERCADO_PORTA", "0"),
        ("MERCADO_DB_URL", MERCADO_URL),
        ("ESTOQUE_DB_URL", ESTOQUE_URL),
    ]
    .into_iter()
    .filter(|(k, _)| *k != without)
    .map(|(k, v)| (k, v.to_string()))
    .collect();
    for (k, v) in overrides {
        env.insert(k, v.to_string());
    }
    env
}

#[test]
fn a_missing_secret_stops_the_service_with_exit_code_2_naming_the_variable() {
    for (var, expected) in [
        ("MERCADO_TOKEN_SERVICO", "giro: configuration error: MERCADO_TOKEN_SERVICO is not set: the mercado service token (at least 32 characters) is required; generate one with `openssl rand -hex 32`"),
        ("ESTOQUE_TOKEN_SERVICO", "giro: configuration error: ESTOQUE_TOKEN_SERVICO is not set: the estoque service token (at least 32 characters) is required; generate one with `openssl rand -hex 32`"),
        ("OPERADOR_SENHA", "giro: configuration error: OPERADOR_SENHA is not set: the operator password (at least 8 characters) is required; generate one with `openssl rand -hex 32`"),
        ("OPERADOR_USUARIO", "giro: configuration error: OPERADOR_USUARIO is not set: the operator login is required"),
    ] {
        let out = command(&["mercado", "serve"], &serve_env(var, &[])).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{var}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.trim_end(), expected);
    }
}

#[test]
fn a_too_short_secret_stops_the_service_with_exit_code_2() {
    let out = command(&["estoque", "serve"], &serve_env("", &[("ESTOQUE_TOKEN_SERVICO", "curto-demais")]))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "giro: configuration error: ESTOQUE_TOKEN_SERVICO (estoque.token-servico) from env ESTOQUE_TOKEN_SERVICO is too short: 12 characters, at least 32 required; generate one with `openssl rand -hex 32`"
    );
    let out =
        command(&["mercado", "serve"], &serve_env("", &[("OPERADOR_SENHA", "1234567")])).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("OPERADOR_SENHA (operador.senha) from env OPERADOR_SENHA is too short: 7 characters, at least 8 required"));
}

/// Issue 37 §3: no database URL has a built-in default (it was the development cluster's, so a
/// server with `ESTOQUE_DB_URL` unset connected there). Each role that uses a database is
/// refused without its URL, with exit code 2 and the variable named, before it connects anywhere
/// (the other URL points where nothing answers). That a role asks for no other database than its
/// own, the tests that start one with its own URL only show (`ops::service`, `outbox::publisher`).
#[tokio::test]
async fn a_missing_database_url_stops_each_role_that_uses_it_with_exit_code_2_naming_the_variable() {
    let motivo = |var: &str, db: &str| {
        format!(
            "giro: configuration error: {var} is not set: the {db} database URL is required \
             (postgres://USER:PASSWORD@HOST:5432/{db}; for the development cluster of scripts/pg, \
             `eval \"$(scripts/pg env)\"`)"
        )
    };
    let sem = |var: &str| {
        let mut env = serve_env("", &[]);
        env.remove(var);
        env
    };
    for (args, sem_var, db) in [
        (&["mercado", "serve"][..], "MERCADO_DB_URL", "mercado"),
        (&["estoque", "serve"], "ESTOQUE_DB_URL", "estoque"),
        (&["publisher", "--db", "estoque"], "ESTOQUE_DB_URL", "estoque"),
        (&["publisher"], "MERCADO_DB_URL", "mercado"),
        (&["migrate", "--db", "mercado"], "MERCADO_DB_URL", "mercado"),
        (&["migrate", "--db", "all"], "ESTOQUE_DB_URL", "estoque"),
        (&["outbox", "status", "--db", "estoque"], "ESTOQUE_DB_URL", "estoque"),
        (&["outbox", "status"], "MERCADO_DB_URL", "mercado"),
        (&["audit"], "ESTOQUE_DB_URL", "estoque"),
    ] {
        let mut giro = Giro::spawn(args, &sem(sem_var));
        // Bounded for a loaded machine; before the fix a service waited for the development
        // database forever (READY=1 never came) and this bound is what failed.
        let status = giro.wait_exit(Duration::from_secs(30)).await;
        let log = giro.log();
        assert_eq!(status.and_then(|s| s.code()), Some(2), "{args:?} without {sem_var}:\n{log}");
        assert_eq!(log.trim_end(), motivo(sem_var, db), "{args:?}");
    }
    // A command with an empty URL is refused the same way.
    let out =
        command(&["migrate", "--db", "mercado"], &serve_env("", &[("MERCADO_DB_URL", "")])).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr).trim_end(), motivo("MERCADO_DB_URL", "mercado"));
}

/// The library's side of the same rule: the configuration loads without a database URL (a
/// command that reads none needs none), and asking for a database that has none names its variable.
#[test]
fn a_configuration_without_database_urls_loads_and_names_the_variable_of_the_one_asked_for() {
    let c = Config::load(&sources(&scratch_dir(), &[("MERCADO_DB_URL", MERCADO_URL)], vec![])).unwrap();
    assert_eq!(c.db(Servico::Mercado).unwrap().pg.get_ports(), &[9]);
    let err = c.db(Servico::Estoque).unwrap_err().to_string();
    assert!(err.starts_with("ESTOQUE_DB_URL is not set: the estoque database URL is required"), "{err}");
}

#[test]
fn giro_config_masks_secrets_and_shows_where_values_came_from() {
    let out = command(&["config"], &serve_env("", &[("GIRO_OUTBOX_LOTE", "77")])).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("outbox.lote = 77  # env GIRO_OUTBOX_LOTE"), "{text}");
    assert!(text.contains("mercado.token-servico = \"***\"  # env MERCADO_TOKEN_SERVICO"), "{text}");
    assert!(text.contains("reserva.ttl = \"15m\"  # default"), "{text}");
    for secret in [MERCADO_TOKEN, ESTOQUE_TOKEN, SENHA] {
        assert!(!text.contains(secret));
    }
}

#[test]
fn giro_config_reflects_a_config_file_an_env_override_and_a_flag_and_masks_database_passwords() {
    let dir = scratch_dir();
    let file = dir.join("producao.toml");
    std::fs::write(
        &file,
        "[outbox]\nlote = 11\nintervalo = \"3s\"\n[log]\nformato = \"human\"\n[estoque]\ndb-url = \"postgres://estoque:senha-no-arquivo@db.interno:5432/estoque\"\n",
    )
    .unwrap();
    let path = file.display().to_string();
    // estoque's URL from the file only.
    let env = serve_env(
        "ESTOQUE_DB_URL",
        &[
            ("GIRO_OUTBOX_LOTE", "77"),
            ("MERCADO_DB_URL", "jdbc:postgresql://db.interno:5432/mercado?user=app&password=senha-no-env"),
            ("TAG_WORKER_TOKEN", "tag-worker-token-123456"),
        ],
    );
    let out = command(&["--config", &path, "--log-format", "json", "config"], &env).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    for line in [
        format!("outbox.intervalo = \"3s\"  # file {path} (GIRO_OUTBOX_INTERVALO)"),
        "outbox.lote = 77  # env GIRO_OUTBOX_LOTE (GIRO_OUTBOX_LOTE)".to_string(),
        "log.formato = \"json\"  # flag --log-format (GIRO_LOG_FORMATO)".to_string(),
        format!("estoque.db-url = \"postgres://estoque:***@db.interno:5432/estoque\"  # file {path} (ESTOQUE_DB_URL)"),
        "mercado.db-url = \"jdbc:postgresql://db.interno:5432/mercado?user=app&password=***\"  # env MERCADO_DB_URL (MERCADO_DB_URL)".to_string(),
        "tags.worker-token = \"***\"  # env TAG_WORKER_TOKEN (TAG_WORKER_TOKEN)".to_string(),
        "operador.senha = \"***\"  # env OPERADOR_SENHA (OPERADOR_SENHA)".to_string(),
        "outbox.retencao = \"7d\"  # default (GIRO_OUTBOX_RETENCAO)".to_string(),
        "# publisher.porta-metricas unset (GIRO_PUBLISHER_PORTA_METRICAS)".to_string(),
    ] {
        assert!(text.lines().any(|l| l == line), "missing {line:?} in:\n{text}");
    }
    for secret in
        [MERCADO_TOKEN, ESTOQUE_TOKEN, SENHA, "senha-no-arquivo", "senha-no-env", "tag-worker-token-123456"]
    {
        assert!(!text.contains(secret), "{secret} in:\n{text}");
    }
    // Every key is printed, set or not.
    assert_eq!(text.lines().count(), giro_servicos::config::keys::KEYS.len(), "{text}");

    // GIRO_CONFIG names the file as --config does; the flag wins over it.
    let mut env = env;
    env.insert("GIRO_CONFIG", path.clone());
    let out = command(&["config"], &env).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&format!("outbox.intervalo = \"3s\"  # file {path}")), "{text}");
    // The file repeats log.formato's built-in default: the value is the default's, said so.
    assert!(text.contains("log.formato = \"human\"  # default"), "{text}");
}

#[test]
fn giro_config_prints_toml_with_real_types_that_reads_back_and_tells_defaults_from_the_file() {
    // The working directory holds the reference itself, as a checkout does.
    let dir = scratch_dir();
    std::fs::create_dir_all(dir.join("config")).unwrap();
    std::fs::write(
        dir.join("config/giro.toml"),
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/config/giro.toml"))
            .unwrap()
            .replace("lote = 50 ", "lote = 60 "),
    )
    .unwrap();
    let out = command(&["config"], &serve_env("", &[])).current_dir(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let file = dir.join("config/giro.toml").display().to_string();
    assert!(
        text.lines().any(|l| l == format!("outbox.lote = 60  # file {file} (GIRO_OUTBOX_LOTE)")),
        "{text}"
    );
    assert!(text.lines().any(|l| l == "outbox.notify = true  # default (GIRO_OUTBOX_NOTIFY)"), "{text}");
    assert!(text.lines().any(|l| l == "mercado.porta = 0  # env MERCADO_PORTA (MERCADO_PORTA)"), "{text}");
    assert!(text.lines().any(|l| l == "reserva.ttl = \"15m\"  # default (GIRO_RESERVA_TTL)"), "{text}");
    // Pasted back, it is TOML with the same types.
    let table: toml::Table = text.parse().expect("giro config prints TOML");
    assert_eq!(table["outbox"]["lote"].as_integer(), Some(60));
    assert_eq!(table["outbox"]["notify"].as_bool(), Some(true));
    assert_eq!(table["reserva"]["ttl"].as_str(), Some("15m"));
}

#[test]
fn giro_config_check_exits_2_naming_every_problem_and_0_when_all_is_well() {
    let out = command(&["config", "--check"], &serve_env("", &[])).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));

    let mut env =
        serve_env("MERCADO_TOKEN_SERVICO", &[("GIRO_OUTBOX_LOTE", "abc"), ("GIRO_DB_POOL_MAX", "0")]);
    env.remove("OPERADOR_USUARIO");
    let out = command(&["config", "--check"], &env).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    for problem in [
        "invalid outbox.lote (GIRO_OUTBOX_LOTE) = \"abc\" from env GIRO_OUTBOX_LOTE",
        "invalid db.pool-max (GIRO_DB_POOL_MAX) = \"0\" from env GIRO_DB_POOL_MAX: must be positive",
        "MERCADO_TOKEN_SERVICO is not set",
        "OPERADOR_USUARIO is not set",
        "giro: 4 configuration problem(s)",
    ] {
        assert!(stderr.contains(problem), "missing {problem:?} in:\n{stderr}");
    }
    for secret in [ESTOQUE_TOKEN, SENHA] {
        assert!(!stderr.contains(secret) && !String::from_utf8_lossy(&out.stdout).contains(secret));
    }

    // The same as JSON, for scripts.
    let out = command(&["config", "--check", "--json"], &env).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(v["ok"], false);
    assert_eq!(v["problems"].as_array().unwrap().len(), 4, "{v}");
    let lote = v["keys"].as_array().unwrap().iter().find(|k| k["key"] == "sessao.ttl").unwrap().clone();
    assert_eq!(lote["source"], "default", "{lote}");
    let senha = v["keys"].as_array().unwrap().iter().find(|k| k["key"] == "operador.senha").unwrap().clone();
    assert_eq!(senha["value"], "***", "{senha}");
    assert_eq!(senha["source"], "env", "{senha}");
}

/// Issue 37 §3: `giro config --check` on a host whose settings name no database reports both
/// variables (it checks what both services need, as it does their tokens); with them, it is clean.
#[test]
fn giro_config_check_reports_each_missing_database_url() {
    let mut env = serve_env("", &[]);
    env.remove("MERCADO_DB_URL");
    env.remove("ESTOQUE_DB_URL");
    let out = command(&["config", "--check"], &env).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    for problem in [
        "giro: configuration error: MERCADO_DB_URL is not set: the mercado database URL is required",
        "giro: configuration error: ESTOQUE_DB_URL is not set: the estoque database URL is required",
        "giro: 2 configuration problem(s)",
    ] {
        assert!(stderr.contains(problem), "missing {problem:?} in:\n{stderr}");
    }
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().any(|l| l == "# mercado.db-url unset (MERCADO_DB_URL)"), "{text}");
}

/// Issue 37 §3: a database password with an unencoded `/`, `#` or `?` (base64-generated
/// passwords hold `/`; the driver accepts them) is masked whole in every form `giro config`
/// prints — it used to print the part after the `/`.
#[test]
fn giro_config_masks_a_database_password_holding_a_slash_or_a_hash() {
    let env = serve_env(
        "",
        &[
            ("MERCADO_DB_URL", "postgres://mercado:Zm9v/YmFy+cXV4=@127.0.0.1:15432/mercado"),
            ("ESTOQUE_DB_URL", "postgres://estoque:se#nh/a?x@127.0.0.1:15432/estoque"),
        ],
    );
    for args in [&["config"][..], &["config", "--check"], &["config", "--json"]] {
        let out = command(args, &env).output().unwrap();
        let text =
            format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        for segredo in ["Zm9v", "YmFy", "cXV4", "se#nh", "nh/a", "a?x"] {
            assert!(!text.contains(segredo), "{args:?} printed {segredo:?}:\n{text}");
        }
        if args.len() == 1 {
            assert!(text.contains("postgres://mercado:***@127.0.0.1:15432/mercado"), "{text}");
        }
    }
}
