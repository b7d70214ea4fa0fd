import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fetchFalso, renderizar } from '../teste-util';
import { PaginaProdutos } from './PaginaProdutos';

const produto = {
  sku: '7894900011517',
  nome: 'Coca-Cola 2L PET',
  preco: 8.99,
  status: 'ESGOTADO',
  prateleira: 0,
  estoqueMinimo: 6,
  estoqueIdeal: 24,
  categoria: null,
  reposicaoAberta: {
    eventId: 'e1',
    qtd: 24,
    status: 'AGUARDANDO_LOTE',
    criadaEm: '2026-01-02T10:00:00Z',
  },
};

function preencher(sku: string) {
  fireEvent.change(screen.getByLabelText('SKU/EAN'), { target: { value: sku } });
  fireEvent.change(screen.getByLabelText('Nome na vitrine'), { target: { value: 'Granola' } });
  fireEvent.change(screen.getByLabelText('Preço (R$)'), { target: { value: '12,50' } });
  fireEvent.change(screen.getByLabelText('Estoque mínimo'), { target: { value: '2' } });
  fireEvent.change(screen.getByLabelText('Estoque ideal'), { target: { value: '8' } });
}

describe('PaginaProdutos (operação do mercado)', () => {
  it('lists shelf, minimum/ideal, status and the open restock request', async () => {
    fetchFalso({ 'GET /api/operacao/produtos': { status: 200, corpo: [produto] } });
    renderizar(<PaginaProdutos />);
    const linha = (await screen.findByText('Coca-Cola 2L PET')).closest('tr')!;
    expect(within(linha).getByText(/R\$.8,99/)).toBeTruthy();
    expect(within(linha).getByText('mín. 6 · ideal 24')).toBeTruthy();
    // One rule for every operator table (issue 39): each cell names its column for the 375 px card.
    for (const td of Array.from(linha.querySelectorAll('td')))
      expect(td.getAttribute('data-rotulo')).toBeTruthy();
    expect(linha.closest('table')!.className).toContain('tabela-cartoes');
    expect(within(linha).getByText('Esgotado')).toBeTruthy();
    expect(within(linha).getByText('24 un. · aguardando lote no estoque')).toBeTruthy();
  });

  it('looks the SKU up in estoque and shows the API’s words for a 409', async () => {
    document.cookie = 'XSRF-MERCADO=tok; path=/';
    let corpo: unknown = null;
    const f = fetchFalso({
      'GET /api/operacao/produtos': { status: 200, corpo: [] },
      'GET /api/operacao/estoque/produtos/7890000000118': {
        status: 200,
        corpo: {
          sku: '7890000000118',
          descricao: 'GRANOLA 800G',
          categoria: 'mercearia',
          tags: null,
        },
      },
      'POST /api/produtos': () => ({
        status: 409,
        corpo: { detail: 'Produto já cadastrado na vitrine: 7890000000118' },
      }),
    });
    renderizar(<PaginaProdutos />);
    preencher('7890000000118');
    expect(await screen.findByText('No estoque: GRANOLA 800G · mercearia')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Cadastrar produto' }));
    expect(await screen.findByText('Produto já cadastrado na vitrine: 7890000000118')).toBeTruthy();
    await waitFor(() => {
      const post = f.mock.calls.find(([u, i]) => u === '/api/produtos' && i?.method === 'POST');
      corpo = JSON.parse(String(post?.[1]?.body));
      expect(new Headers(post?.[1]?.headers).get('X-XSRF-TOKEN')).toBe('tok');
    });
    expect(corpo).toEqual({
      sku: '7890000000118',
      nome: 'Granola',
      preco: 12.5,
      estoqueMinimo: 2,
      estoqueIdeal: 8,
    });
  });

  it('an invalid SKU is said at once, without asking estoque', async () => {
    const f = fetchFalso({ 'GET /api/operacao/produtos': { status: 200, corpo: [] } });
    renderizar(<PaginaProdutos />);
    preencher('123');
    expect(await screen.findByText('EAN-8 ou GTIN de 12 a 14 dígitos.')).toBeTruthy();
    expect(f.mock.calls.some(([u]) => String(u).includes('/operacao/estoque/'))).toBe(false);
  });
});
