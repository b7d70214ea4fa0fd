//! A process on another clock: Debian's libfaketime preloaded (`scripts/faketime-setup` installs it
//! when missing and prints the library's path). Only the wall clock moves: the monotonic clock is
//! left alone (`FAKETIME_DONT_FAKE_MONOTONIC`), so tokio's timers and the pools' timeouts keep
//! working.

use std::process::Command;

/// The path of `libfaketime.so.1`.
pub fn libfaketime() -> String {
    let script = format!("{}/scripts/faketime-setup", env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(&script).output().unwrap_or_else(|e| panic!("{script}: {e}"));
    assert!(out.status.success(), "{script} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The environment that runs a process `deslocamento` off the true clock (`"+2m"`, `"-2d"`: the
/// offset syntax of libfaketime's `FAKETIME`).
pub fn fora_de_hora(deslocamento: &str) -> Vec<(&'static str, String)> {
    vec![
        ("LD_PRELOAD", libfaketime()),
        ("FAKETIME", deslocamento.to_string()),
        ("FAKETIME_DONT_FAKE_MONOTONIC", "1".to_string()),
    ]
}
