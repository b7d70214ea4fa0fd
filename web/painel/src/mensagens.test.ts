import { describe, expect, it } from 'vitest';
import { mensagemLoteRegistrado, pedidosAguardando, perguntaLoteVencido } from './mensagens';

const r = (saldoDisponivel: number, demandasAtendidas: number, classificado: boolean) => ({
  loteId: 1,
  sku: '7891962047205',
  saldoDisponivel,
  classificado,
  demandasAtendidas,
});

describe('mensagem de lote registrado (SPEC §8.2)', () => {
  it('says the lot, the balance, the demands served and pending tags', () => {
    expect(mensagemLoteRegistrado('L-1', r(60, 0, true))).toBe(
      'Lote L-1 registrado. Saldo do SKU: 60.',
    );
    expect(mensagemLoteRegistrado('L-1', r(1248, 1, true))).toBe(
      'Lote L-1 registrado. Saldo do SKU: 1.248. 1 demanda reprimida atendida.',
    );
    expect(mensagemLoteRegistrado('L-1', r(48, 3, true))).toBe(
      'Lote L-1 registrado. Saldo do SKU: 48. 3 demandas reprimidas atendidas.',
    );
    expect(mensagemLoteRegistrado('L-1', r(48, 0, false))).toBe(
      'Lote L-1 registrado. Saldo do SKU: 48. Tags pendentes: o produto será reclassificado depois.',
    );
    expect(mensagemLoteRegistrado('L-9', r(10, 2, false))).toBe(
      'Lote L-9 registrado. Saldo do SKU: 10. 2 demandas reprimidas atendidas. Tags pendentes: o produto será reclassificado depois.',
    );
    expect(mensagemLoteRegistrado('L-V', r(0, 0, true), true)).toBe(
      'Lote L-V registrado. Saldo do SKU: 0. Lote vencido: não sai para o mercado; dê baixa nele no Estoque.',
    );
  });
  it('asks before an expired lot is sent, with the date as the operator reads it', () => {
    expect(perguntaLoteVencido('L-1', '2020-01-20')).toBe(
      'A validade 20/01/2020 já passou. O lote L-1 vai entrar no estoque como vencido: não sai para o mercado, não atende demanda nenhuma e fica no Estoque para dar baixa. Registrar mesmo assim?',
    );
  });
  it('counts the orders waiting for a lot', () => {
    expect(pedidosAguardando(1)).toBe('1 pedido aguardando lote');
    expect(pedidosAguardando(4)).toBe('4 pedidos aguardando lote');
    expect(pedidosAguardando(1500)).toBe('1.500 pedidos aguardando lote');
  });
});
