import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fetchFalso, renderizar } from '../teste-util';
import {
  inicioDoDia,
  numeroDigitado,
  PaginaPedidoOperador,
  PaginaPedidos,
  totalDaLinha,
} from './PaginaPedidos';

const pagina = {
  itens: [
    {
      id: '3f0c9a2e-1b4d-4e6f-8a7b-9c0d1e2f3a4b',
      numero: 1002,
      status: 'PAGO',
      total: 26.35,
      criadoEm: '2026-12-02T13:05:00Z',
      itens: 2,
      unidades: 5,
    },
  ],
  total: 41,
  pagina: 1,
  tamanho: 20,
};

describe('PaginaPedidos (operação do mercado)', () => {
  it('lists number, status, total, date and units, with pages', async () => {
    fetchFalso({ 'GET /api/operacao/pedidos': { status: 200, corpo: pagina } });
    renderizar(<PaginaPedidos />);
    const linha = (await screen.findByText('nº 1002')).closest('tr')!;
    expect(within(linha).getByText('Pago')).toBeTruthy();
    expect(within(linha).getByText(/R\$.26,35/)).toBeTruthy();
    expect(within(linha).getByText('5 unidades')).toBeTruthy();
    expect(within(linha).getByText(/^02\/12\/2026 às \d\d:\d\d$/)).toBeTruthy();
    expect(screen.getByText('41 pedidos')).toBeTruthy();
    expect(screen.getByText('Página 1 de 3')).toBeTruthy();
    expect(within(linha).getByRole('link', { name: 'nº 1002' }).getAttribute('href')).toBe(
      '/pedidos/3f0c9a2e-1b4d-4e6f-8a7b-9c0d1e2f3a4b',
    );
  });

  it('filters by status and by local dates, the last day included', async () => {
    const de = inicioDoDia('2026-12-01')!;
    const ate = inicioDoDia('2026-12-03', 1)!;
    const f = fetchFalso({
      'GET /api/operacao/pedidos': { status: 200, corpo: pagina },
      'GET /api/operacao/pedidos?status=PAGO': { status: 200, corpo: pagina },
      [`GET /api/operacao/pedidos?status=PAGO&de=${encodeURIComponent(de)}`]: {
        status: 200,
        corpo: pagina,
      },
      [`GET /api/operacao/pedidos?status=PAGO&de=${encodeURIComponent(de)}&ate=${encodeURIComponent(ate)}`]:
        { status: 200, corpo: { itens: [], total: 0, pagina: 1, tamanho: 20 } },
    });
    renderizar(<PaginaPedidos />);
    await screen.findByText('nº 1002');
    fireEvent.change(screen.getByLabelText('Status'), { target: { value: 'PAGO' } });
    fireEvent.change(screen.getByLabelText('De'), { target: { value: '2026-12-01' } });
    fireEvent.change(screen.getByLabelText('Até'), { target: { value: '2026-12-03' } });
    expect(
      await screen.findByText('Nenhum pedido com esse filtro. Mude o status ou o período.'),
    ).toBeTruthy();
    await waitFor(() =>
      expect(f.mock.calls.map(([u]) => u)).toContain(
        `/api/operacao/pedidos?status=PAGO&de=${encodeURIComponent(de)}&ate=${encodeURIComponent(ate)}`,
      ),
    );
    expect(new Date(ate).getTime() - new Date(de).getTime()).toBeGreaterThanOrEqual(
      3 * 24 * 3600 * 1000 - 3600 * 1000,
    );
  });

  it('an order shows its items, reservations, payment and expiry', async () => {
    fetchFalso({
      'GET /api/operacao/pedidos/abc': {
        status: 200,
        corpo: {
          id: 'abc',
          numero: 1001,
          status: 'AGUARDANDO_PAGAMENTO',
          total: 17.98,
          criadoEm: '2026-12-02T13:05:00Z',
          reservaExpiraEm: '2026-12-02T13:20:00Z',
          itens: [{ sku: '7894900011517', nome: 'Coca-Cola 2L PET', qtd: 2, precoUnitario: 8.99 }],
          reservas: [
            { sku: '7894900011517', qtd: 2, status: 'ATIVA', expiraEm: '2026-12-02T13:20:00Z' },
          ],
          pagamento: null,
        },
      },
    });
    renderizar(<PaginaPedidoOperador />, { rota: '/pedidos/abc', caminho: '/pedidos/:id' });
    expect(await screen.findByRole('heading', { name: 'Pedido nº 1001' })).toBeTruthy();
    expect(screen.getByText('Aguardando pagamento')).toBeTruthy();
    expect(screen.getByText('Não pago')).toBeTruthy();
    expect(screen.getByText('Coca-Cola 2L PET')).toBeTruthy();
    const reservas = screen.getByRole('list', { name: 'Reservas' });
    expect(within(reservas).getByText(/2 un\. · Ativa · prazo 02\/12\/2026 às/)).toBeTruthy();
  });

  it('an unknown order says so, with the way back', async () => {
    fetchFalso({
      'GET /api/operacao/pedidos/xyz': { status: 400, corpo: { detail: 'id do pedido inválido' } },
    });
    renderizar(<PaginaPedidoOperador />, { rota: '/pedidos/xyz', caminho: '/pedidos/:id' });
    expect(await screen.findByText(/Pedido não encontrado\./)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Voltar aos pedidos' })).toBeTruthy();
  });

  it('finds an order by the number people read out, and refuses what is not a number', async () => {
    expect([numeroDigitado('1001'), numeroDigitado(' #1001 '), numeroDigitado('nº 1001')]).toEqual([
      1001, 1001, 1001,
    ]);
    expect([numeroDigitado('abc'), numeroDigitado('0'), numeroDigitado('10.5')]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    const f = fetchFalso({
      'GET /api/operacao/pedidos': { status: 200, corpo: pagina },
      'GET /api/operacao/pedidos?numero=1002': { status: 200, corpo: pagina },
      'GET /api/operacao/pedidos?numero=1003': {
        status: 200,
        corpo: { itens: [], total: 0, pagina: 1, tamanho: 20 },
      },
    });
    renderizar(<PaginaPedidos />);
    await screen.findByText('nº 1002');
    const campo = screen.getByLabelText('Número do pedido');
    fireEvent.change(campo, { target: { value: 'pedido x' } });
    fireEvent.click(screen.getByRole('button', { name: 'Buscar' }));
    expect(screen.getByRole('alert').textContent).toBe('Digite só o número do pedido, como 1001.');
    fireEvent.change(campo, { target: { value: '#1002' } });
    fireEvent.click(screen.getByRole('button', { name: 'Buscar' }));
    await waitFor(() =>
      expect(f.mock.calls.map(([u]) => u)).toContain('/api/operacao/pedidos?numero=1002'),
    );
    expect(screen.queryByRole('alert')).toBeNull();
    fireEvent.change(campo, { target: { value: '1003' } });
    fireEvent.click(screen.getByRole('button', { name: 'Buscar' }));
    expect(await screen.findByText('Nenhum pedido nº 1003. Confira o número.')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Ver todos' }));
    expect(await screen.findByText('nº 1002')).toBeTruthy();
  });

  it('shows each line total, and a paid order no longer shows its reservation deadline', async () => {
    expect(totalDaLinha(3, 8.99)).toBe(26.97);
    fetchFalso({
      'GET /api/operacao/pedidos/abc': {
        status: 200,
        corpo: {
          id: 'abc',
          numero: 1001,
          status: 'PAGO',
          total: 26.35,
          criadoEm: '2026-12-02T13:05:00Z',
          reservaExpiraEm: '2026-12-02T13:20:00Z',
          itens: [
            { sku: '7894900011517', nome: 'Coca-Cola 2L PET', qtd: 2, precoUnitario: 8.99 },
            { sku: '7891022100105', nome: 'Detergente', qtd: 3, precoUnitario: 2.79 },
          ],
          reservas: [
            {
              sku: '7894900011517',
              qtd: 2,
              status: 'CONFIRMADA',
              expiraEm: '2026-12-02T13:20:00Z',
            },
          ],
          pagamento: { pagoEm: '2026-12-02T13:07:00Z' },
        },
      },
    });
    renderizar(<PaginaPedidoOperador />, { rota: '/pedidos/abc', caminho: '/pedidos/:id' });
    await screen.findByRole('heading', { name: 'Pedido nº 1001' });
    const linha = document.querySelector('tr[data-sku="7891022100105"]') as HTMLElement;
    expect(within(linha).getByText(/R\$.8,37/)).toBeTruthy();
    expect(
      within(document.querySelector('tr[data-sku="7894900011517"]') as HTMLElement).getByText(
        /R\$.17,98/,
      ),
    ).toBeTruthy();
    expect(screen.queryByText('Reserva expira')).toBeNull();
    expect(screen.getByRole('list', { name: 'Reservas' }).textContent).not.toContain('prazo');
    expect(screen.queryByRole('button', { name: 'Cancelar pedido' })).toBeNull();
  });

  it('cancels an unpaid order after a confirmation and says what came back, or why not', async () => {
    document.cookie = 'XSRF-MERCADO=tok; path=/';
    const aguardando = {
      id: 'abc',
      numero: 1001,
      status: 'AGUARDANDO_PAGAMENTO',
      total: 17.98,
      criadoEm: '2026-12-02T13:05:00Z',
      reservaExpiraEm: '2026-12-02T13:20:00Z',
      itens: [{ sku: '7894900011517', nome: 'Coca-Cola 2L PET', qtd: 2, precoUnitario: 8.99 }],
      reservas: [
        { sku: '7894900011517', qtd: 2, status: 'ATIVA', expiraEm: '2026-12-02T13:20:00Z' },
      ],
      pagamento: null,
    };
    const cancelado = {
      ...aguardando,
      status: 'CANCELADO',
      reservas: [{ ...aguardando.reservas[0], status: 'EXPIRADA' }],
    };
    const f = fetchFalso({
      'GET /api/operacao/pedidos/abc': { status: 200, corpo: aguardando },
      'POST /api/operacao/pedidos/abc/cancelamento': { status: 200, corpo: cancelado },
    });
    renderizar(<PaginaPedidoOperador />, { rota: '/pedidos/abc', caminho: '/pedidos/:id' });
    expect(await screen.findByText('Reserva expira')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Cancelar pedido' }));
    const confirmar = screen.getByRole('group', { name: 'Confirmar cancelamento' });
    expect(
      within(confirmar).getByText(/Cancelar o pedido nº 1001\? 2 unidades reservadas voltam/),
    ).toBeTruthy();
    expect(f.mock.calls.some(([, i]) => i?.method === 'POST')).toBe(false);
    fireEvent.click(within(confirmar).getByRole('button', { name: 'Confirmar cancelamento' }));
    expect(
      await screen.findByText('Pedido nº 1001 cancelado: 2 unidades voltaram para a vitrine.'),
    ).toBeTruthy();
    expect(screen.getByText('Cancelado')).toBeTruthy();
    const post = f.mock.calls.find(([, i]) => i?.method === 'POST')!;
    expect(new Headers(post[1]?.headers).get('X-XSRF-TOKEN')).toBe('tok');
    expect(screen.queryByRole('button', { name: 'Cancelar pedido' })).toBeNull();
    expect(screen.queryByText('Reserva expira')).toBeNull();
    expect(
      within(screen.getByRole('list', { name: 'Reservas' })).getByText(/Liberada no cancelamento/),
    ).toBeTruthy();
  });

  it('a cancel refused because the order was paid meanwhile says so', async () => {
    document.cookie = 'XSRF-MERCADO=tok; path=/';
    const recusa = 'O pedido abc não pode ser cancelado: ele já foi pago.';
    fetchFalso({
      'GET /api/operacao/pedidos/abc': {
        status: 200,
        corpo: {
          id: 'abc',
          numero: 1001,
          status: 'AGUARDANDO_PAGAMENTO',
          total: 8.99,
          criadoEm: '2026-12-02T13:05:00Z',
          reservaExpiraEm: '2026-12-02T13:20:00Z',
          itens: [],
          reservas: [],
          pagamento: null,
        },
      },
      'POST /api/operacao/pedidos/abc/cancelamento': {
        status: 409,
        corpo: { status: 409, title: 'Cancelamento recusado', detail: recusa },
      },
    });
    renderizar(<PaginaPedidoOperador />, { rota: '/pedidos/abc', caminho: '/pedidos/:id' });
    fireEvent.click(await screen.findByRole('button', { name: 'Cancelar pedido' }));
    fireEvent.click(screen.getByRole('button', { name: 'Confirmar cancelamento' }));
    expect((await screen.findByRole('alert')).textContent).toBe(recusa);
  });
});
