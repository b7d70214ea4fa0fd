import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { GraficosOperador } from './GraficosOperador';

function fetchFalso(rotas: Record<string, unknown>) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      if (!(url in rotas)) throw new TypeError(`Failed to fetch ${url}`);
      return new Response(JSON.stringify(rotas[url]), {
        status: 200,
        headers: { 'Content-Type': 'application/json' },
      });
    }),
  );
}

const linhas = (tabela: HTMLElement) =>
  within(tabela)
    .getAllByRole('row')
    .map((r) => Array.from(r.children).map((c) => c.textContent));

describe('GraficosOperador', () => {
  it('orders and revenue per hour, the ones that run out most, shelf against minimum and ideal', async () => {
    fetchFalso({
      '/api/operacao/graficos/vendas?horas=24': {
        horas: 24,
        pontos: [
          { hora: '2026-01-02T10:00:00Z', pedidos: 3, pagos: 2, receita: 29.7 },
          { hora: '2026-01-02T11:00:00Z', pedidos: 0, pagos: 0, receita: 0 },
        ],
      },
      '/api/operacao/graficos/esgotados?horas=24': {
        horas: 24,
        produtos: [
          { sku: '7894900011517', nome: 'Coca-Cola 2L', status: 'ESGOTADO', reposicoes: 3 },
          { sku: '7891000100103', nome: 'Leite 1L', status: 'DISPONIVEL', reposicoes: 1 },
        ],
      },
      '/api/operacao/graficos/prateleira': [
        { sku: '2000000000114', nome: 'Banana', prateleira: 0, estoqueMinimo: 3, estoqueIdeal: 10 },
      ],
    });
    render(
      <QueryClientProvider
        client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}
      >
        <GraficosOperador />
      </QueryClientProvider>,
    );
    const pedidos = await screen.findByRole('figure', { name: 'Pedidos por hora' });
    expect(
      within(pedidos).getByText('Pedidos feitos e pagos nas últimas 24 h: 3 pedidos.'),
    ).toBeTruthy();
    const receita = screen.getByRole('figure', { name: 'Receita por hora' });
    expect(
      within(receita).getByText(/Total dos pedidos pagos nas últimas 24 h: R\$\s29,70\./),
    ).toBeTruthy();
    expect(linhas(within(receita).getByRole('table'))[1]![1]).toMatch(/R\$\s29,70/);

    const esg = await screen.findByRole('figure', { name: 'Os que mais esgotam' });
    expect(linhas(within(esg).getByRole('table')).slice(1)).toEqual([
      ['Coca-Cola 2L (esgotado)', '3'],
      ['Leite 1L', '1'],
    ]);
    const prat = await screen.findByRole('figure', { name: 'Prateleira, mínimo e ideal' });
    expect(linhas(within(prat).getByRole('table'))).toEqual([
      ['Produto', 'Prateleira', 'Mínimo', 'Ideal'],
      ['Banana', '0', '3', '10'],
    ]);
  });

  it('a chart that cannot load says so and the others still show', async () => {
    fetchFalso({
      '/api/operacao/graficos/prateleira': [],
      '/api/operacao/graficos/esgotados?horas=24': { horas: 24, produtos: [] },
    });
    render(
      <QueryClientProvider
        client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}
      >
        <GraficosOperador />
      </QueryClientProvider>,
    );
    expect(
      await screen.findByText(
        'Não foi possível carregar as vendas por hora. A página tenta de novo sozinha.',
      ),
    ).toBeTruthy();
    expect(
      await screen.findByText('Nenhum produto pediu reposição nas últimas 24 h.'),
    ).toBeTruthy();
    expect(await screen.findByText('Nenhum produto cadastrado.')).toBeTruthy();
  });
});
