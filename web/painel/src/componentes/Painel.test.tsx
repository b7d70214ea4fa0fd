import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { App } from '../App';
import { fetchFalso, renderizar } from '../teste-util';

const agora = Date.now();
const ha = (ms: number) => new Date(agora - ms).toISOString();
const hojeCedo = new Date();
hojeCedo.setHours(0, 5, 0, 0);

function painelCom(extra: Record<string, Parameters<typeof fetchFalso>[0][string]> = {}) {
  document.cookie = 'XSRF-ESTOQUE=tok; path=/';
  return fetchFalso({
    'GET /api/sessao?opcional=true': { status: 200, corpo: { usuario: 'operador' } },
    'GET /api/painel/resumo': {
      status: 200,
      corpo: { skusCadastrados: 1248, skusSemSaldo: 2, demandasAbertas: 1, lotesVencendo: 1000000 },
    },
    'GET /api/painel/demandas': {
      status: 200,
      corpo: [
        {
          id: 1,
          sku: '7891962047205',
          descricao: 'PAO DE FORMA',
          qtdSolicitada: 12,
          registradoEm: ha(3 * 3600_000),
        },
      ],
    },
    'GET /api/painel/reposicoes?limite=20': {
      status: 200,
      corpo: [
        {
          eventId: 'e1',
          sku: '7894900011517',
          descricao: 'COCA',
          qtd: 24,
          codigoLote: 'L-COCA-01',
          expedidoEm: hojeCedo.toISOString(),
          entregueEm: null,
        },
        {
          eventId: 'e2',
          sku: '2000000000114',
          descricao: 'BANANA',
          qtd: 1500,
          codigoLote: 'L-BANA-01',
          expedidoEm: '2025-12-24T13:07:00',
          entregueEm: '2025-12-24T13:07:01Z',
        },
      ],
    },
    'DELETE /api/sessao': { status: 204 },
    ...extra,
  });
}

describe('Painel', () => {
  it('shows the operator, the KPIs in pt-BR format, the demand and the restocks', async () => {
    painelCom();
    renderizar(<App />);
    expect(await screen.findByRole('heading', { name: 'Painel do estoque' })).toBeTruthy();
    expect(screen.getByTestId('operador').textContent).toBe('operador');
    expect(
      (await screen.findByText('1.248')).closest('[data-testid]')?.getAttribute('data-testid'),
    ).toBe('kpi-skusCadastrados');
    expect(screen.getByTestId('kpi-lotesVencendo').textContent).toBe(
      'Lotes vencendo em 30 dias1.000.000',
    );
    expect(screen.getByTestId('kpi-skusSemSaldo').textContent).toBe('SKUs sem saldo válido2');
    expect(screen.getByTestId('kpi-demandasAbertas').textContent).toBe('Demanda reprimida1');
    expect(await screen.findByText('1 pedido aguardando lote')).toBeTruthy();
    expect(screen.getByText('há 3 horas')).toBeTruthy();
    const linhas = within(document.querySelector('#reposicoes')! as HTMLElement).getAllByRole(
      'row',
    );
    expect(
      linhas.map((l) =>
        within(l)
          .queryAllByRole('cell')
          .map((c) => c.textContent),
      ),
    ).toEqual([
      [],
      ['00:05', '7894900011517', 'COCA', '24', 'L-COCA-01', 'enviando'],
      ['24/12 13:07', '2000000000114', 'BANANA', '1.500', 'L-BANA-01', 'entregue'],
    ]);
    const nav = screen.getByRole('complementary', { name: 'Navegação do painel' });
    expect(
      within(nav)
        .getAllByRole('link')
        .map((a) => [a.textContent, a.getAttribute('href')]),
    ).toEqual([
      ['Estoque', '#/estoque'],
      ['Entrada de lote', '#entrada-lote'],
      ['Demanda reprimida', '#demanda-reprimida'],
      ['Reposições', '#reposicoes'],
      ['Gráficos', '#graficos'],
      ['Eventos', '#eventos'],
      ['Ver a vitrine', 'http://localhost:15173'],
    ]);
  });

  it('at phone width the events and the waiting demand come before the lot form (issue 39)', async () => {
    const ordem = async (estreito: boolean) => {
      vi.stubGlobal('matchMedia', (q: string) => ({
        matches: estreito && q === '(max-width: 640px)',
        addEventListener: () => {},
        removeEventListener: () => {},
      }));
      painelCom();
      const { unmount } = renderizar(<App />);
      await screen.findByRole('heading', { name: 'Entrada de lote' });
      const ids = Array.from(document.querySelectorAll('main > section[id]')).map((e) => e.id);
      // The menu follows the page's order.
      const nav = screen.getByRole('complementary', { name: 'Navegação do painel' });
      const ancoras = within(nav)
        .getAllByRole('link')
        .map((a) => a.getAttribute('href') ?? '')
        .filter((h) => h.startsWith('#') && !h.startsWith('#/'))
        .map((h) => h.slice(1));
      expect(ancoras).toEqual(ids.filter((id) => ancoras.includes(id)));
      expect(ancoras).toHaveLength(5);
      unmount();
      return ids;
    };
    const estreita = await ordem(true);
    expect(estreita).toEqual(
      expect.arrayContaining(['eventos', 'demanda-reprimida', 'entrada-lote']),
    );
    expect(estreita.indexOf('eventos')).toBeLessThan(estreita.indexOf('entrada-lote'));
    expect(estreita.indexOf('demanda-reprimida')).toBeLessThan(estreita.indexOf('entrada-lote'));
    const larga = await ordem(false);
    expect(larga.indexOf('entrada-lote')).toBeLessThan(larga.indexOf('eventos'));
  });

  it('empty tables say so', async () => {
    painelCom({
      'GET /api/painel/demandas': { status: 200, corpo: [] },
      'GET /api/painel/reposicoes?limite=20': { status: 200, corpo: [] },
    });
    renderizar(<App />);
    expect(await screen.findByText('Nenhum pedido do mercado esperando saldo.')).toBeTruthy();
    expect(await screen.findByText('Nenhum lote enviado ao mercado ainda.')).toBeTruthy();
  });

  it('load errors: 5xx "O estoque não respondeu.", no answer "Verifique a conexão…", and "Tentar de novo"', async () => {
    let resumoFalha = true;
    painelCom({
      'GET /api/painel/resumo': () =>
        resumoFalha
          ? { status: 502 }
          : {
              status: 200,
              corpo: { skusCadastrados: 8, skusSemSaldo: 2, demandasAbertas: 2, lotesVencendo: 0 },
            },
      'GET /api/painel/demandas': 'falha',
    });
    renderizar(<App />);
    expect(
      await screen.findByText('Não foi possível carregar. O estoque não respondeu.'),
    ).toBeTruthy();
    expect(
      await screen.findByText(
        'Não foi possível carregar. Verifique a conexão com o estoque-service.',
      ),
    ).toBeTruthy();
    resumoFalha = false;
    fireEvent.click(
      within(
        screen.getByText('Não foi possível carregar. O estoque não respondeu.').parentElement!,
      ).getByRole('button', { name: 'Tentar de novo' }),
    );
    expect((await screen.findByTestId('kpi-skusCadastrados')).textContent).toBe(
      'SKUs cadastrados8',
    );
  });

  it('no session (401 on GET /sessao) → the login', async () => {
    painelCom({
      'GET /api/sessao?opcional=true': { status: 401, corpo: { detail: 'nenhum operador logado' } },
    });
    renderizar(<App />);
    expect(await screen.findByRole('heading', { name: 'Entrar no painel' })).toBeTruthy();
    expect(screen.getByLabelText('Usuário')).toBeTruthy();
    expect(screen.getByLabelText('Senha')).toBeTruthy();
  });

  it('nobody logged in is asked without a 401 (opcional=true → {usuario: null}) → the login (issue 39)', async () => {
    const f = painelCom({
      'GET /api/sessao?opcional=true': { status: 200, corpo: { usuario: null } },
    });
    renderizar(<App />);
    expect(await screen.findByRole('heading', { name: 'Entrar no painel' })).toBeTruthy();
    expect(f.mock.calls.map(([u]) => u)).toContain('/api/sessao?opcional=true');
    expect(f.mock.calls.map(([u]) => u)).not.toContain('/api/sessao');
  });

  it('a 401 from any query clears the session → back to the login', async () => {
    painelCom({
      'GET /api/painel/demandas': { status: 401, corpo: { detail: 'autenticação necessária' } },
    });
    const { cliente } = renderizar(<App />);
    expect(await screen.findByRole('heading', { name: 'Entrar no painel' })).toBeTruthy();
    expect(cliente.getQueryData(['sessao'])).toBeNull();
    expect(
      cliente
        .getQueryCache()
        .findAll({ queryKey: ['painel'] })
        .filter((q) => q.state.data !== undefined),
    ).toEqual([]);
  });

  it('"Sair" deletes the session with the CSRF header and goes back to the login', async () => {
    const f = painelCom();
    renderizar(<App />);
    fireEvent.click(await screen.findByRole('button', { name: 'Sair' }));
    expect(await screen.findByRole('heading', { name: 'Entrar no painel' })).toBeTruthy();
    const del = f.mock.calls.find(
      (c) => (c as unknown as [string, RequestInit])[1]?.method === 'DELETE',
    ) as unknown as [string, RequestInit];
    expect(new Headers(del[1].headers).get('X-XSRF-TOKEN')).toBe('tok');
  });
});
