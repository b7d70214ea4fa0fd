import { fireEvent, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { CHAVE } from '../carrinho';
import { fetchFalso, renderizar } from '../teste-util';
import { PaginaCarrinho } from './PaginaCarrinho';

const item = {
  sku: '7894900011517',
  nome: 'Coca-Cola 2L PET',
  preco: 8.99,
  categoria: 'bebidas',
  qtd: 4,
  disponivel: 10,
};
const produto = (disponivel: number, status = 'DISPONIVEL') => ({
  sku: item.sku,
  nome: item.nome,
  preco: 8.99,
  status,
  disponivel,
  categoria: 'bebidas',
  tags: [],
});
const conflito = {
  status: 409,
  corpo: {
    title: 'Estoque insuficiente',
    status: 409,
    sku: item.sku,
    detail: 'Estoque insuficiente para o SKU 7894900011517: solicitado 4, disponível 2',
  },
};

function comCarrinho() {
  localStorage.setItem(CHAVE, JSON.stringify([item]));
  renderizar(<PaginaCarrinho />, { rota: '/carrinho' });
}

const finalizar = () => fireEvent.click(screen.getByRole('button', { name: 'Finalizar compra' }));
const quantidade = () =>
  (screen.getByRole('spinbutton', { name: 'Quantidade de Coca-Cola 2L PET' }) as HTMLInputElement)
    .value;

describe('PaginaCarrinho', () => {
  it('lists the saved cart with its total and the reservation banner', () => {
    comCarrinho();
    expect(screen.getByTestId('total-carrinho').textContent).toBe('R$\u00a035,96');
    expect(
      screen.getByText(/^Ao finalizar, os itens ficam reservados na prateleira até o pagamento/),
    ).toBeTruthy();
    expect(quantidade()).toBe('4');
  });

  it('posts the items and goes to the order page, emptying the cart', async () => {
    let responder: (r: Response) => void = () => {};
    const f = vi.fn(() => new Promise<Response>((ok) => (responder = ok)));
    vi.stubGlobal('fetch', f);
    comCarrinho();
    finalizar();
    const botao = await screen.findByRole('button', { name: 'Reservando…' });
    expect((botao as HTMLButtonElement).disabled).toBe(true);
    responder(
      new Response(
        JSON.stringify({ pedidoId: 'abc', total: 35.96, reservaExpiraEm: '2026-01-01T00:15:00Z' }),
        { status: 201 },
      ),
    );
    await screen.findByText('página do pedido');
    expect(
      JSON.parse((f.mock.calls[0] as unknown as [string, RequestInit])[1].body as string),
    ).toEqual({ itens: [{ sku: item.sku, qtd: 4 }] });
    expect(localStorage.getItem(CHAVE)).toBe('[]');
  });

  it('409: refetches the product and lowers the quantity ("Só restam N…")', async () => {
    fetchFalso({
      'POST /api/pedidos': conflito,
      [`GET /api/produtos/${item.sku}`]: { status: 200, corpo: produto(2) },
    });
    comCarrinho();
    finalizar();
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Só restam 2 unidades — ajustamos a quantidade.',
    );
    expect(quantidade()).toBe('2');
  });

  it('409: one left ("Só resta 1…")', async () => {
    fetchFalso({
      'POST /api/pedidos': conflito,
      [`GET /api/produtos/${item.sku}`]: { status: 200, corpo: produto(1) },
    });
    comCarrinho();
    finalizar();
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Só resta 1 unidade — ajustamos a quantidade.',
    );
    expect(quantidade()).toBe('1');
  });

  it('409: sold out meanwhile ("Esgotou…") removes the item', async () => {
    fetchFalso({
      'POST /api/pedidos': conflito,
      [`GET /api/produtos/${item.sku}`]: { status: 200, corpo: produto(3, 'ESGOTADO') },
    });
    comCarrinho();
    finalizar();
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Esgotou enquanto você comprava — removemos do carrinho.',
    );
    expect(screen.getByText('Seu carrinho está vazio.')).toBeTruthy();
    expect(localStorage.getItem(CHAVE)).toBe('[]');
  });

  it('422: a product left the storefront', async () => {
    fetchFalso({
      'POST /api/pedidos': {
        status: 422,
        corpo: { status: 422, detail: 'Produto não encontrado na vitrine: 7894900011517' },
      },
    });
    comCarrinho();
    finalizar();
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Um dos produtos saiu da vitrine. Remova-o e tente de novo.',
    );
    expect(quantidade()).toBe('4');
  });

  it('any other failure keeps the cart', async () => {
    fetchFalso({ 'POST /api/pedidos': { status: 500 } });
    comCarrinho();
    finalizar();
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Não conseguimos finalizar agora. Seu carrinho continua salvo — tente de novo.',
    );
    expect(JSON.parse(localStorage.getItem(CHAVE)!)).toEqual([item]);
  });

  it('changes and removes items', () => {
    comCarrinho();
    fireEvent.click(
      screen.getByRole('button', { name: 'Aumentar quantidade de Coca-Cola 2L PET' }),
    );
    expect(quantidade()).toBe('5');
    fireEvent.change(screen.getByRole('spinbutton', { name: 'Quantidade de Coca-Cola 2L PET' }), {
      target: { value: '99' },
    });
    expect(quantidade()).toBe('10');
    fireEvent.click(screen.getByRole('button', { name: 'Remover Coca-Cola 2L PET do carrinho' }));
    expect(screen.getByText('Seu carrinho está vazio.')).toBeTruthy();
  });
});
