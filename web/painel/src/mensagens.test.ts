import { describe, expect, it } from 'vitest';
import { mensagemLoteRegistrado, pedidosAguardando } from './mensagens';

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
  });
  it('counts the orders waiting for a lot', () => {
    expect(pedidosAguardando(1)).toBe('1 pedido aguardando lote');
    expect(pedidosAguardando(4)).toBe('4 pedidos aguardando lote');
    expect(pedidosAguardando(1500)).toBe('1.500 pedidos aguardando lote');
  });
});
