import { act, fireEvent, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fetchFalso, renderizar } from '../teste-util';
import { PaginaPedido } from './PaginaPedido';

const ID = '0b8f6a4e-9a53-4d0e-9a3a-4b5e0e5a1c7d';
const pedido = (status: string, reservaExpiraEm: string | null) => ({
  id: ID,
  status,
  total: 34.45,
  criadoEm: '2026-03-10T15:00:00Z',
  reservaExpiraEm,
  itens: [
    { sku: '7894900011517', nome: 'Coca-Cola 2L PET', qtd: 2, precoUnitario: 8.99 },
    { sku: '2000000000114', nome: 'Banana Prata (kg)', qtd: 3, precoUnitario: 5.49 },
  ],
});

const abrir = () =>
  renderizar(<PaginaPedido />, { rota: `/pedidos/${ID}`, caminho: '/pedidos/:id' });

describe('PaginaPedido', () => {
  it('shows the short number and the date people keep (issue 26)', async () => {
    fetchFalso({
      [`GET /api/pedidos/${ID}`]: { status: 200, corpo: { ...pedido('PAGO', null), numero: 1042 } },
    });
    abrir();
    const linha = await screen.findByTestId('pedido-numero');
    expect(linha.textContent).toMatch(/^Pedido nº 1042 · feito em 10\/03\/2026 às \d\d:\d\d$/);
    expect(screen.queryByText(ID)).toBeNull();
  });

  it.each([
    ['PAGO', 'Pedido pago', 'Pagamento confirmado. Obrigado pela compra!'],
    [
      'EXPIRADO',
      'Reserva expirada',
      'O prazo terminou sem pagamento e os itens voltaram para a vitrine.',
    ],
    ['CANCELADO', 'Pedido cancelado', null],
  ])('%s → "%s"', async (status, titulo, texto) => {
    fetchFalso({ [`GET /api/pedidos/${ID}`]: { status: 200, corpo: pedido(status, null) } });
    abrir();
    expect((await screen.findByRole('heading', { level: 1 })).textContent).toBe(titulo);
    if (texto) expect(screen.getByText(texto)).toBeTruthy();
    expect(screen.queryByRole('button', { name: /^Pagar/ })).toBeNull();
    expect(screen.getByText('2 × Coca-Cola 2L PET')).toBeTruthy();
    expect(screen.getByText(ID)).toBeTruthy();
  });

  it('counts the reservation down, then says the deadline passed and asks again every 5 s', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setTimeout', 'setInterval', 'Date'] });
    vi.setSystemTime(new Date('2026-03-10T15:00:00Z'));
    const f = fetchFalso({
      [`GET /api/pedidos/${ID}`]: {
        status: 200,
        corpo: pedido('AGUARDANDO_PAGAMENTO', '2026-03-10T15:00:03Z'),
      },
    });
    abrir();
    expect((await screen.findByRole('heading', { level: 1 })).textContent).toBe('Pedido reservado');
    expect(screen.getByRole('timer').textContent).toBe(
      'Itens reservados no estoque por 00:03 — garantimos que ninguém leva o último antes de você concluir o pagamento.',
    );
    expect(screen.getByRole('button', { name: 'Pagar R$\u00a034,45' })).toBeTruthy();
    expect(screen.getByText('Pagamento simulado: nenhum valor é cobrado.')).toBeTruthy();
    await act(async () => void (await vi.advanceTimersByTimeAsync(3100)));
    expect(
      screen.getByText('O prazo da reserva terminou. Os itens voltam para a vitrine em instantes.'),
    ).toBeTruthy();
    expect(screen.queryByRole('button', { name: /^Pagar/ })).toBeNull();
    const antes = f.mock.calls.length;
    await act(async () => void (await vi.advanceTimersByTimeAsync(10_100)));
    expect(f.mock.calls.length).toBeGreaterThanOrEqual(antes + 2);
  });

  it('pays: "Pagando…", then "Pedido pago"', async () => {
    const expira = new Date(Date.now() + 15 * 60_000).toISOString();
    fetchFalso({
      [`GET /api/pedidos/${ID}`]: { status: 200, corpo: pedido('AGUARDANDO_PAGAMENTO', expira) },
      [`POST /api/pedidos/${ID}/pagamento`]: { status: 200, corpo: pedido('PAGO', expira) },
    });
    abrir();
    fireEvent.click(await screen.findByRole('button', { name: 'Pagar R$\u00a034,45' }));
    expect(await screen.findByRole('button', { name: 'Pagando…' })).toBeTruthy();
    expect(await screen.findByText('Pagamento confirmado. Obrigado pela compra!')).toBeTruthy();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Pedido pago');
  });

  /** The page opened and "Pagar" clicked; the payment is refused (409), the order having become
   * `depois` meanwhile (what the page reads again). */
  async function pagarRecusado(depois: string) {
    const expira = new Date(Date.now() + 15 * 60_000).toISOString();
    let status = 'AGUARDANDO_PAGAMENTO';
    fetchFalso({
      [`GET /api/pedidos/${ID}`]: () => ({ status: 200, corpo: pedido(status, expira) }),
      [`POST /api/pedidos/${ID}/pagamento`]: () => {
        status = depois;
        return { status: 409, corpo: { title: 'Pagamento recusado', status: 409 } };
      },
    });
    abrir();
    fireEvent.click(await screen.findByRole('button', { name: 'Pagar R$\u00a034,45' }));
  }

  it('payment refused (409): says so and asks again', async () => {
    await pagarRecusado('EXPIRADO');
    expect((await screen.findByRole('alert')).textContent).toBe(
      'O prazo da reserva terminou antes do pagamento.',
    );
    expect((await screen.findByText('Reserva expirada')).tagName).toBe('H1');
  });

  it('an order the shop cancelled while the shopper paid says so, not that time ran out', async () => {
    await pagarRecusado('CANCELADO');
    expect((await screen.findByText('Pedido cancelado')).tagName).toBe('H1');
    expect((await screen.findByRole('alert')).textContent).toBe(
      'A loja cancelou este pedido antes do pagamento. Nada foi cobrado.',
    );
  });

  it('a cancelled order says the shop cancelled it and nothing was charged', async () => {
    fetchFalso({ [`GET /api/pedidos/${ID}`]: { status: 200, corpo: pedido('CANCELADO', null) } });
    abrir();
    expect(
      await screen.findByText(
        'A loja cancelou este pedido e os itens voltaram para a vitrine. Nada foi cobrado.',
      ),
    ).toBeTruthy();
  });

  it('an unknown order is the not-found page', async () => {
    fetchFalso({ [`GET /api/pedidos/${ID}`]: { status: 404 } });
    abrir();
    expect(await screen.findByText('Página não encontrada')).toBeTruthy();
  });
});
