//! The demo catalogue of SPEC §1, loaded through the public APIs: lots first (estoque, `POST
//! /lotes`), then products (mercado, `POST /produtos`), so each registration inherits its
//! classification and its first restock request finds a lot. Loading twice changes nothing and
//! logs nothing: what is already there (the SKU in estoque, the product in mercado) is not sent
//! again (a 409 from a race with another loader is still taken as "already there"). Pão and sabão
//! get lots that expired yesterday: the warehouse does not ship them, the storefront shows them
//! sold out and their pent-up demand stays open (they are sent with `confirmarVencido`, as the
//! dashboard sends goods the operator confirmed arrived expired; estoque takes them in with or
//! without it: SPEC §6.2.1).

use chrono::{Duration, NaiveDate, Utc};
use serde_json::json;

use super::cliente::Operador;

pub struct Item {
    pub sku: &'static str,
    pub descricao: &'static str,
    pub ncm: &'static str,
    pub nome: &'static str,
    pub preco: &'static str,
    pub minimo: i32,
    pub ideal: i32,
    pub lote: &'static str,
    pub vencido: bool,
}

pub const CATALOGO: &[Item] = &[
    Item {
        sku: "7894900011517",
        descricao: "COCA COLA 2L PET",
        ncm: "22021000",
        nome: "Coca-Cola 2L PET",
        preco: "8.99",
        minimo: 6,
        ideal: 24,
        lote: "L-COCA-01",
        vencido: false,
    },
    Item {
        sku: "2000000000114",
        descricao: "BANANA PRATA KG",
        ncm: "08039000",
        nome: "Banana Prata (kg)",
        preco: "5.49",
        minimo: 5,
        ideal: 20,
        lote: "L-BANA-01",
        vencido: false,
    },
    Item {
        sku: "7891022100105",
        descricao: "DETERGENTE NEUTRO 500ML",
        ncm: "34022000",
        nome: "Detergente Neutro 500ml",
        preco: "2.79",
        minimo: 10,
        ideal: 40,
        lote: "L-DETE-01",
        vencido: false,
    },
    Item {
        sku: "7891962047205",
        descricao: "PAO DE FORMA INTEGRAL 400G",
        ncm: "19059090",
        nome: "Pão de Forma Integral",
        preco: "7.90",
        minimo: 4,
        ideal: 12,
        lote: "L-PAO-01",
        vencido: true,
    },
    Item {
        sku: "7896005800027",
        descricao: "CAFE TORRADO E MOIDO 500G",
        ncm: "09012100",
        nome: "Café Torrado e Moído 500g",
        preco: "15.90",
        minimo: 5,
        ideal: 20,
        lote: "L-CAFE-01",
        vencido: false,
    },
    Item {
        sku: "7891000100103",
        descricao: "LEITE UHT INTEGRAL 1L",
        ncm: "04012010",
        nome: "Leite Integral 1L",
        preco: "4.59",
        minimo: 12,
        ideal: 48,
        lote: "L-LEIT-01",
        vencido: false,
    },
    Item {
        sku: "7896006716112",
        descricao: "ARROZ BRANCO TIPO 1 5KG",
        ncm: "10063021",
        nome: "Arroz Branco 5kg",
        preco: "24.90",
        minimo: 4,
        ideal: 16,
        lote: "L-ARRO-01",
        vencido: false,
    },
    Item {
        sku: "7891150061729",
        descricao: "SABAO EM PO 1KG",
        ncm: "34022000",
        nome: "Sabão em Pó 1kg",
        preco: "12.49",
        minimo: 4,
        ideal: 12,
        lote: "L-SABA-01",
        vencido: true,
    },
];

/// Each demo lot has 60 units.
pub const QUANTIDADE_LOTE: i32 = 60;

/// Today in São Paulo (UTC−3 all year since 2019, when Brazil abolished daylight saving).
pub fn hoje_sao_paulo() -> NaiveDate {
    (Utc::now() - Duration::hours(3)).date_naive()
}

/// What a load did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Carga {
    pub lotes: usize,
    pub produtos: usize,
}

pub async fn carregar(estoque: &Operador, mercado: &Operador) -> anyhow::Result<Carga> {
    let hoje = hoje_sao_paulo();
    let mut carga = Carga::default();
    for i in CATALOGO {
        if estoque.get(&format!("/produtos/{}", i.sku)).await?.0 == 200 {
            continue;
        }
        let validade = if i.vencido { hoje - Duration::days(1) } else { hoje + Duration::days(120) };
        let body = json!({"sku": i.sku, "descricao": i.descricao, "ncm": i.ncm, "codigoLote": i.lote,
                          "quantidade": QUANTIDADE_LOTE, "validade": validade.to_string(),
                          "confirmarVencido": i.vencido});
        match estoque.post("/lotes", &body).await? {
            (201, _) => carga.lotes += 1,
            (409, _) => {}
            (s, b) => anyhow::bail!("POST /lotes {} answered {s}: {b}", i.lote),
        }
    }
    for i in CATALOGO {
        if mercado.get(&format!("/produtos/{}", i.sku)).await?.0 == 200 {
            continue;
        }
        let preco: serde_json::Value = serde_json::from_str(i.preco)?;
        let body = json!({"sku": i.sku, "nome": i.nome, "preco": preco, "estoqueMinimo": i.minimo, "estoqueIdeal": i.ideal});
        match mercado.post("/produtos", &body).await? {
            (201, _) => carga.produtos += 1,
            (409, _) => {}
            (s, b) => anyhow::bail!("POST /produtos {} answered {s}: {b}", i.sku),
        }
    }
    Ok(carga)
}
