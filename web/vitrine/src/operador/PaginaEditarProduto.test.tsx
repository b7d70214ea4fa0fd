import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fetchFalso, renderizar } from '../teste-util';
import { alteracao, PaginaEditarProduto } from './PaginaEditarProduto';

const produto = {
  sku: '7894900011517',
  nome: 'Coca-Cola 2L PET',
  preco: 8.99,
  status: 'DISPONIVEL' as const,
  prateleira: 10,
  estoqueMinimo: 6,
  estoqueIdeal: 24,
  categoria: null,
  reposicaoAberta: null,
  listado: true,
};

const rota = { rota: `/produtos/${produto.sku}`, caminho: '/produtos/:sku' };

afterEach(() => vi.restoreAllMocks());

describe('PaginaEditarProduto (operação do mercado)', () => {
  it('sends only what changed', () => {
    const campos = { preco: '8,99', estoqueMinimo: '6', estoqueIdeal: '24', listado: true };
    expect(alteracao(produto, campos)).toBeUndefined();
    expect(alteracao(produto, { ...campos, preco: '9,49', estoqueMinimo: '12' })).toEqual({
      preco: 9.49,
      estoqueMinimo: 12,
    });
    expect(alteracao(produto, { ...campos, listado: false })).toEqual({ listado: false });
  });

  it('a minimum above the shelf says the restock it asked for', async () => {
    document.cookie = 'XSRF-MERCADO=tok; path=/';
    const f = fetchFalso({
      'GET /api/operacao/produtos': { status: 200, corpo: [produto] },
      [`PATCH /api/operacao/produtos/${produto.sku}`]: {
        status: 200,
        corpo: {
          ...produto,
          estoqueMinimo: 12,
          reposicaoAberta: {
            eventId: 'e',
            qtd: 14,
            status: 'PENDENTE',
            criadaEm: '2026-12-04T10:00:00Z',
          },
        },
      },
    });
    renderizar(<PaginaEditarProduto />, rota);
    fireEvent.change(await screen.findByLabelText('Estoque mínimo'), { target: { value: '12' } });
    fireEvent.click(screen.getByRole('button', { name: 'Salvar alterações' }));
    expect(
      await screen.findByText(
        'Alterações salvas. A prateleira ficou abaixo do novo mínimo: a reposição automática pediu 14 un. ao estoque.',
      ),
    ).toBeTruthy();
    await waitFor(() => {
      const patch = f.mock.calls.find(([, i]) => i?.method === 'PATCH');
      expect(JSON.parse(String(patch?.[1]?.body))).toEqual({ estoqueMinimo: 12 });
      expect(new Headers(patch?.[1]?.headers).get('X-XSRF-TOKEN')).toBe('tok');
    });
  });

  it('unlisting asks first, and the API’s words are shown on a 400', async () => {
    const confirmar = vi.spyOn(window, 'confirm').mockReturnValueOnce(false).mockReturnValue(true);
    const f = fetchFalso({
      'GET /api/operacao/produtos': { status: 200, corpo: [produto] },
      [`PATCH /api/operacao/produtos/${produto.sku}`]: {
        status: 400,
        corpo: { detail: 'exigido 1 <= estoqueMinimo <= estoqueIdeal; recebido min=6 ideal=5' },
      },
    });
    renderizar(<PaginaEditarProduto />, rota);
    fireEvent.click(await screen.findByLabelText('À venda na vitrine'));
    fireEvent.click(screen.getByRole('button', { name: 'Salvar alterações' }));
    expect(confirmar).toHaveBeenCalledTimes(1);
    expect(f.mock.calls.some(([, i]) => i?.method === 'PATCH')).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: 'Salvar alterações' }));
    expect(
      await screen.findByText('exigido 1 <= estoqueMinimo <= estoqueIdeal; recebido min=6 ideal=5'),
    ).toBeTruthy();
  });
});
