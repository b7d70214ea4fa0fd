// The demo catalogue of SPEC §1 (each lot of 60 units; pão and sabão with lots that expired
// yesterday), loaded through the public APIs: lots on estoque first, then products on mercado.
import type { Operador } from './cliente';

export interface ItemDemo {
  sku: string;
  descricao: string;
  ncm: string;
  nome: string;
  preco: number;
  minimo: number;
  ideal: number;
  lote: string;
  vencido: boolean;
}

const linhas = `7894900011517|COCA COLA 2L PET|22021000|Coca-Cola 2L PET|8.99|6|24|L-COCA-01|+120d
2000000000114|BANANA PRATA KG|08039000|Banana Prata (kg)|5.49|5|20|L-BANA-01|+120d
7891022100105|DETERGENTE NEUTRO 500ML|34022000|Detergente Neutro 500ml|2.79|10|40|L-DETE-01|+120d
7891962047205|PAO DE FORMA INTEGRAL 400G|19059090|Pão de Forma Integral|7.90|4|12|L-PAO-01|yesterday
7896005800027|CAFE TORRADO E MOIDO 500G|09012100|Café Torrado e Moído 500g|15.90|5|20|L-CAFE-01|+120d
7891000100103|LEITE UHT INTEGRAL 1L|04012010|Leite Integral 1L|4.59|12|48|L-LEIT-01|+120d
7896006716112|ARROZ BRANCO TIPO 1 5KG|10063021|Arroz Branco 5kg|24.90|4|16|L-ARRO-01|+120d
7891150061729|SABAO EM PO 1KG|34022000|Sabão em Pó 1kg|12.49|4|12|L-SABA-01|yesterday`;

export const CATALOGO: ItemDemo[] = linhas.split('\n').map((l) => {
  const [sku, descricao, ncm, nome, preco, minimo, ideal, lote, validade] = l.split('|');
  return {
    sku: sku!,
    descricao: descricao!,
    ncm: ncm!,
    nome: nome!,
    preco: Number(preco),
    minimo: Number(minimo),
    ideal: Number(ideal),
    lote: lote!,
    vencido: validade === 'yesterday',
  };
});

export const QUANTIDADE_LOTE = 60;
export const demo = (sku: string): ItemDemo => CATALOGO.find((i) => i.sku === sku)!;
export const COCA = '7894900011517';
export const BANANA = '2000000000114';
export const PAO = '7891962047205';
export const SABAO = '7891150061729';

/** Today in São Paulo (UTC−3 all year), as estoque counts expiry, plus `dias`. */
export function diaSaoPaulo(dias = 0): string {
  const d = new Date(Date.now() - 3 * 3600_000 + dias * 86_400_000);
  return d.toISOString().slice(0, 10);
}

export async function carregarDemo(estoque: Operador, mercado: Operador): Promise<void> {
  for (const i of CATALOGO) {
    const r = await estoque.post('/lotes', {
      sku: i.sku,
      descricao: i.descricao,
      ncm: i.ncm,
      codigoLote: i.lote,
      quantidade: QUANTIDADE_LOTE,
      validade: diaSaoPaulo(i.vencido ? -1 : 120),
      confirmarVencido: i.vencido,
    });
    if (r.status !== 201)
      throw new Error(`POST /lotes ${i.lote}: ${r.status} ${JSON.stringify(r.corpo)}`);
  }
  for (const i of CATALOGO) {
    const r = await mercado.post('/produtos', {
      sku: i.sku,
      nome: i.nome,
      preco: i.preco,
      estoqueMinimo: i.minimo,
      estoqueIdeal: i.ideal,
    });
    if (r.status !== 201)
      throw new Error(`POST /produtos ${i.sku}: ${r.status} ${JSON.stringify(r.corpo)}`);
  }
}
