import { describe, expect, it } from 'vitest';
import { hrefEstoque, hrefSku, lerRota } from './rota';

describe('rota', () => {
  it('reads the dashboard, the inventory with its filter, and one SKU from the hash', () => {
    expect(lerRota('')).toEqual({ pagina: 'painel' });
    expect(lerRota('#entrada-lote')).toEqual({ pagina: 'painel' });
    expect(lerRota('#/estoque')).toEqual({ pagina: 'estoque', filtro: {} });
    expect(lerRota('#/estoque?estado=vencendo&busca=caf%C3%A9&pagina=3')).toEqual({
      pagina: 'estoque',
      filtro: { estado: 'vencendo', busca: 'café', pagina: 3 },
    });
    expect(lerRota('#/estoque/7894900011517')).toEqual({ pagina: 'sku', sku: '7894900011517' });
  });

  it('drops what it does not know: an unknown state, a page below 2, a blank search', () => {
    expect(lerRota('#/estoque?estado=perdido&pagina=0&busca=%20')).toEqual({
      pagina: 'estoque',
      filtro: {},
    });
    expect(lerRota('#/estoque?pagina=x')).toEqual({ pagina: 'estoque', filtro: {} });
  });

  it('writes links that read back to the same filter', () => {
    expect(hrefEstoque()).toBe('#/estoque');
    expect(hrefEstoque({ estado: 'sem-saldo-valido' })).toBe('#/estoque?estado=sem-saldo-valido');
    const f = { busca: 'arroz 5kg', estado: 'com-saldo' as const, pagina: 2 };
    expect(lerRota(hrefEstoque(f))).toEqual({ pagina: 'estoque', filtro: f });
    expect(hrefEstoque({ pagina: 1 })).toBe('#/estoque');
    expect(hrefSku('7894900011517')).toBe('#/estoque/7894900011517');
  });
});
