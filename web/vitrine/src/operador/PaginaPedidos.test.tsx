import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fetchFalso, renderizar } from '../teste-util';
import { inicioDoDia, PaginaPedidoOperador, PaginaPedidos } from './PaginaPedidos';

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
});
