import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fetchFalso, renderizar } from '../teste-util';
import { PaginaProduto } from './PaginaProduto';

const coca = {
  sku: '7894900011517',
  nome: 'Coca-Cola 2L PET',
  preco: 8.99,
  status: 'DISPONIVEL',
  disponivel: 24,
  categoria: 'bebidas',
  tags: ['coca', 'cola', '2l', 'pet'],
  reposicaoACaminho: false,
  listado: true,
  descricao: 'Refrigerante de cola.\nGarrafa PET de 2 litros.',
  imagem: '/produtos/7894900011517/imagem?v=abc',
};

afterEach(() => vi.restoreAllMocks());

describe('PaginaProduto', () => {
  it('shows the owner’s description and image, and not the classifier’s raw tags (issue 39)', async () => {
    fetchFalso({ [`GET /api/produtos/${coca.sku}`]: { status: 200, corpo: coca } });
    const { container } = renderizar(<PaginaProduto />, {
      rota: `/produtos/${coca.sku}`,
      caminho: '/produtos/:sku',
    });
    expect((await screen.findByTestId('descricao')).textContent).toBe(coca.descricao);
    expect(container.querySelector('.monograma-grande img')?.getAttribute('src')).toBe(
      `/api${coca.imagem}`,
    );
    expect(screen.queryByText('cola')).toBeNull();
    expect(screen.queryByRole('list', { name: 'Tags' })).toBeNull();
  });
});
