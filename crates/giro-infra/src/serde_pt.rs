//! serde's error messages in pt-BR, without the Rust types they name (`struct CheckoutRequest`,
//! `i32`): what a client reads in a 400, from the HTTP extractors and from the event contracts
//! alike, so it lives below both.

/// serde's English messages, which name Rust types, in pt-BR without them.
pub fn traduzir(msg: &str) -> String {
    let tipo = |t: &str| -> String {
        let t = t.trim();
        if t.starts_with("struct ") || t == "a map" || t.starts_with("map") {
            "um objeto".into()
        } else if t.starts_with("a sequence") || t.starts_with("tuple") || t.starts_with("sequence") {
            "uma lista".into()
        } else if ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "usize"]
            .iter()
            .any(|p| t.starts_with(p))
        {
            "um número inteiro".into()
        } else if t.starts_with("f32") || t.starts_with("f64") {
            "um número".into()
        } else if t.contains("string") || t.starts_with("a borrowed str") {
            "um texto".into()
        } else if t.starts_with("a boolean") {
            "um booleano".into()
        } else if t.starts_with("UUID") || t.contains("UUID") {
            "um UUID".into()
        } else if t.starts_with("one of") || t.starts_with("unit variant") || t.starts_with("variant") {
            t.to_string()
        } else {
            "outro valor".into()
        }
    };
    // serde_json appends " at line L column C"; keep it, it helps find the spot.
    let (corpo, posicao) = match msg.rfind(" at line ") {
        Some(i) => (&msg[..i], &msg[i..]),
        None => (msg, ""),
    };
    let posicao = posicao.replace(" at line ", " (linha ").replace(" column ", ", coluna ");
    let posicao = if posicao.is_empty() { posicao } else { format!("{posicao})") };
    let texto = if let Some(rest) = corpo.strip_prefix("invalid type: ") {
        match rest.split_once(", expected ") {
            Some((achado, esperado)) => format!("tipo inválido: {achado}, esperado {}", tipo(esperado)),
            None => format!("tipo inválido: {rest}"),
        }
    } else if let Some(rest) = corpo.strip_prefix("invalid value: ") {
        match rest.split_once(", expected ") {
            Some((achado, esperado)) if tipo(esperado) == "um número inteiro" => {
                format!("valor inválido: {achado}, fora do intervalo do campo")
            }
            Some((achado, esperado)) => format!("valor inválido: {achado}, esperado {}", tipo(esperado)),
            None => format!("valor inválido: {rest}"),
        }
    } else if let Some(rest) = corpo.strip_prefix("missing field ") {
        format!("campo obrigatório ausente: {}", rest.trim_matches('`'))
    } else if let Some(rest) = corpo.strip_prefix("unknown variant ") {
        format!("valor não aceito: {rest}")
    } else if let Some(rest) = corpo.strip_prefix("invalid length ") {
        match rest.split_once(", expected ") {
            Some((n, _)) => format!("tamanho inválido: {n}"),
            None => "tamanho inválido".into(),
        }
    } else if corpo.starts_with("EOF while parsing") {
        "JSON incompleto".into()
    } else if corpo.starts_with("trailing characters") {
        "caracteres após o fim do JSON".into()
    } else if corpo.starts_with("expected") || corpo.starts_with("key must be") {
        format!("sintaxe inválida ({corpo})")
    } else if corpo.contains("struct ") || corpo.contains("enum ") {
        "formato inválido".into()
    } else {
        corpo.to_string()
    };
    format!("{texto}{posicao}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_messages_lose_their_rust_types() {
        for (msg, want) in [
            (
                "invalid type: string \"x\", expected struct CheckoutRequest at line 1 column 3",
                "tipo inválido: string \"x\", esperado um objeto (linha 1, coluna 3)",
            ),
            (
                "invalid value: integer `2147483648`, expected i32",
                "valor inválido: integer `2147483648`, fora do intervalo do campo",
            ),
            ("missing field `itens`", "campo obrigatório ausente: itens"),
            ("invalid type: map, expected a sequence", "tipo inválido: map, esperado uma lista"),
        ] {
            assert_eq!(traduzir(msg), want);
            assert!(!traduzir(msg).contains("struct"));
        }
    }
}
