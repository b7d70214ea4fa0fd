import { afterEach, describe, expect, it, vi } from 'vitest';
import { ErroApi, fecharPedido, pagarPedido } from './api';
import { fetchFalso } from './teste-util';

const ITENS = [{ sku: '7894900011517', qtd: 2 }];
const FECHADO = { pedidoId: 'p-1', total: 19.8, reservaExpiraEm: '2026-12-04T12:00:00Z' };

/** The Idempotency-Key of each POST /api/pedidos the stub saw. */
function chaves(f: ReturnType<typeof fetchFalso>): (string | null)[] {
  return f.mock.calls.map(([, init]) => new Headers(init?.headers).get('Idempotency-Key'));
}

describe('fecharPedido', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('retries a 503 once with the same Idempotency-Key and returns the order', async () => {
    const respostas = [
      { status: 503, corpo: { detail: 'tente novamente' } },
      { status: 201, corpo: FECHADO },
    ];
    const f = fetchFalso({ 'POST /api/pedidos': () => respostas.shift()! });
    await expect(fecharPedido(ITENS, 'chave-1', 0)).resolves.toEqual(FECHADO);
    expect(chaves(f)).toEqual(['chave-1', 'chave-1']);
  });

  it('retries a lost answer (no response) once with the same key, made when none is given', async () => {
    let n = 0;
    const f = vi.fn(async () => {
      if (n++ === 0) throw new TypeError('network error');
      return new Response(JSON.stringify(FECHADO), { status: 201 });
    });
    vi.stubGlobal('fetch', f);
    await expect(fecharPedido(ITENS, undefined, 0)).resolves.toEqual(FECHADO);
    const [a, b] = f.mock.calls.map((c) =>
      new Headers((c as unknown as [string, RequestInit])[1].headers).get('Idempotency-Key'),
    );
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(b).toBe(a);
  });

  it('retries only once: a second 503 is the answer', async () => {
    const f = fetchFalso({ 'POST /api/pedidos': { status: 503 } });
    await expect(fecharPedido(ITENS, 'chave-2', 0)).rejects.toMatchObject({ status: 503 });
    expect(f).toHaveBeenCalledTimes(2);
  });

  it('never retries a business answer (409, 400, 500)', async () => {
    for (const status of [409, 400, 500]) {
      const f = fetchFalso({ 'POST /api/pedidos': { status } });
      const e = await fecharPedido(ITENS, 'chave-3', 0).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ErroApi);
      expect((e as ErroApi).status).toBe(status);
      expect(f).toHaveBeenCalledTimes(1);
      vi.unstubAllGlobals();
    }
  });

  it('pagarPedido retries a 503 once (paying twice is a no-op) but not a 409', async () => {
    const pago = { id: 'p-1', status: 'PAGO' };
    const respostas = [{ status: 503 }, { status: 200, corpo: pago }];
    const f = fetchFalso({ 'POST /api/pedidos/p-1/pagamento': () => respostas.shift()! });
    await expect(pagarPedido('p-1', 0)).resolves.toEqual(pago);
    expect(f).toHaveBeenCalledTimes(2);
    vi.unstubAllGlobals();
    const g = fetchFalso({ 'POST /api/pedidos/p-1/pagamento': { status: 409 } });
    await expect(pagarPedido('p-1', 0)).rejects.toMatchObject({ status: 409 });
    expect(g).toHaveBeenCalledTimes(1);
  });
});
