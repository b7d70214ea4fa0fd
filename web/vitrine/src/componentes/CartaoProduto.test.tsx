import { act, fireEvent, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { Produto } from '../api';
import { renderizar } from '../teste-util';
import { CartaoProduto } from './CartaoProduto';

const coca: Produto = {
  sku: '7894900011517',
  nome: 'Coca-Cola 2L PET',
  preco: 8.99,
  status: 'DISPONIVEL',
  disponivel: 24,
  categoria: 'bebidas',
  tags: [],
};

describe('CartaoProduto', () => {
  it('shows an available product with its price and an "Adicionar" button that confirms for 1.5 s', () => {
    vi.useFakeTimers();
    renderizar(<CartaoProduto produto={coca} />);
    expect(screen.getByText('Em estoque')).toBeTruthy();
    expect(screen.getByText('R$ 8,99')).toBeTruthy();
    expect(screen.getByText('Bebidas')).toBeTruthy();
    expect(screen.getByText('CC')).toBeTruthy();
    expect(screen.getByRole('link').getAttribute('href')).toBe('/produtos/7894900011517');
    const botao = screen.getByRole('button', { name: 'Adicionar Coca-Cola 2L PET ao carrinho' });
    expect(botao.textContent).toBe('Adicionar');
    fireEvent.click(botao);
    expect(botao.textContent).toBe('Adicionado ✓');
    expect(screen.getByRole('status').textContent).toBe('Coca-Cola 2L PET adicionado ao carrinho');
    expect(JSON.parse(localStorage.getItem('giro.carrinho')!)).toEqual([
      { sku: coca.sku, nome: coca.nome, preco: 8.99, categoria: 'bebidas', qtd: 1, disponivel: 24 },
    ]);
    act(() => void vi.advanceTimersByTime(1499));
    expect(botao.textContent).toBe('Adicionado ✓');
    act(() => void vi.advanceTimersByTime(1));
    expect(botao.textContent).toBe('Adicionar');
    expect(screen.getByRole('status').textContent).toBe('');
  });

  it('shows a sold-out product with "Reposição a caminho" only while a restock is in flight, and no button', () => {
    const { unmount } = renderizar(
      <CartaoProduto
        produto={{ ...coca, status: 'ESGOTADO', disponivel: 0, reposicaoACaminho: true }}
      />,
    );
    expect(screen.getByText('Esgotado')).toBeTruthy();
    expect(screen.getByText('Reposição a caminho')).toBeTruthy();
    expect(screen.queryByRole('button')).toBeNull();
    expect(screen.queryByText('Em estoque')).toBeNull();
    unmount();
  });

  it('says "Esgotado — aguardando novo lote" when nothing is on its way', () => {
    for (const reposicaoACaminho of [false, undefined]) {
      const { unmount } = renderizar(
        <CartaoProduto
          produto={{ ...coca, status: 'ESGOTADO', disponivel: 0, reposicaoACaminho }}
        />,
      );
      expect(screen.getByText('Esgotado — aguardando novo lote')).toBeTruthy();
      expect(screen.queryByText('Reposição a caminho')).toBeNull();
      unmount();
    }
  });

  it('shows the product’s image in the monogram’s box, and the initials when it fails to load', () => {
    const url = `/produtos/${coca.sku}/imagem?v=abc`;
    const { container } = renderizar(<CartaoProduto produto={{ ...coca, imagem: url }} />);
    const img = container.querySelector('.monograma-foto img')!;
    expect(img.getAttribute('src')).toBe(`/api${url}`);
    expect(screen.queryByText('CC')).toBeNull();
    fireEvent.error(img);
    expect(screen.getByText('CC')).toBeTruthy();
    expect(container.querySelector('.monograma img')).toBeNull();
  });
});
