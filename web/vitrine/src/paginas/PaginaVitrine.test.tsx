import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fetchFalso, renderizar } from '../teste-util';
import { PaginaVitrine } from './PaginaVitrine';

const cafe = {
  sku: '7896005800027',
  nome: 'Café Torrado e Moído 500g',
  preco: 17.9,
  status: 'DISPONIVEL',
  disponivel: 30,
  categoria: 'MERCEARIA',
  tags: ['cafe'],
  reposicaoACaminho: false,
  listado: true,
};

describe('PaginaVitrine (busca)', () => {
  it('a search that finds nothing says so and offers the categories', async () => {
    fetchFalso({
      'GET /api/produtos': { status: 200, corpo: [cafe] },
      'GET /api/produtos?busca=xyz': { status: 200, corpo: [] },
    });
    renderizar(<PaginaVitrine />, { rota: '/?busca=xyz' });
    expect(await screen.findByText('Nenhum produto para “xyz”')).toBeTruthy();
    const caminhos = await screen.findByRole('list', { name: 'Categorias para continuar' });
    const link = within(caminhos).getByRole('link');
    expect(link.getAttribute('href')).toBe('/?categoria=MERCEARIA');
  });
});
