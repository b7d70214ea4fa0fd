//! Girô's infrastructure, shared and role-free: [`config`] (the typed settings the lower crates take; the keys and their layers are the application's), [`db`] (pools, the
//! `Tx` type that business functions take, migrations), [`supervisor`] (background loops
//! restarted and reflected in readiness), [`shutdown`], [`telemetry`], [`trace`] and [`otlp`]
//! (trace context and export), [`systemd`] (readiness notification), [`client`] (the
//! outgoing HTTP client's one recipe), [`mascara`] (passwords
//! masked in what is shown or logged), [`serde_pt`] (serde's messages in pt-BR, for the HTTP
//! input policy and the event contracts).

/// A closed set of names as an enum, each variant's text spelled once: `TODOS` (every variant),
/// `NOMES` (their texts, in that order), `nome()` and `de_nome()` back, and `Display` as the text.
#[macro_export]
macro_rules! nomes {
    ($(#[$m:meta])* $vis:vis enum $nome:ident { $($(#[$vm:meta])* $v:ident = $texto:literal,)* }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $nome {
            $($(#[$vm])* $v,)*
        }

        impl $nome {
            pub const TODOS: [$nome; [$($texto),*].len()] = [$($nome::$v),*];
            pub const NOMES: [&'static str; [$($texto),*].len()] = [$($texto),*];

            pub const fn nome(self) -> &'static str {
                match self {
                    $($nome::$v => $texto,)*
                }
            }

            pub fn de_nome(s: &str) -> Option<Self> {
                Self::TODOS.into_iter().find(|v| v.nome() == s)
            }
        }

        impl ::std::fmt::Display for $nome {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                // `pad`, not `write_str`: text columns align with `{:<7}`.
                f.pad(self.nome())
            }
        }
    };
}

pub mod client;
pub mod config;
pub mod db;
pub mod mascara;
pub mod otlp;
pub mod serde_pt;
pub mod shutdown;
pub mod supervisor;
pub mod systemd;
pub mod telemetry;
pub mod trace;
