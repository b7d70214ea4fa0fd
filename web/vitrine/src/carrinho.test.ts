import { describe, expect, it } from 'vitest';
import {
  CHAVE,
  carregar,
  carrinhoReducer,
  lerCarrinho,
  salvar,
  totalCentavos,
  totalItens,
  type ItemCarrinho,
} from './carrinho';
import { mensagemSemEstoque } from './mensagens';

const coca = {
  sku: '7894900011517',
  nome: 'Coca-Cola 2L PET',
  preco: 8.99,
  categoria: 'bebidas',
  status: 'DISPONIVEL' as const,
  disponivel: 5,
};
const banana = {
  sku: '2000000000114',
  nome: 'Banana Prata (kg)',
  preco: 5.49,
  categoria: 'hortifruti',
  status: 'DISPONIVEL' as const,
  disponivel: 20,
};
const add = (itens: ItemCarrinho[], produto: typeof coca, qtd = 1) =>
  carrinhoReducer(itens, { tipo: 'adicionar', produto, qtd });

describe('adicionar', () => {
  it('adds a new item with its quantity within [1, disponível]', () => {
    expect(add([], coca, 2)).toEqual([
      { sku: coca.sku, nome: coca.nome, preco: 8.99, categoria: 'bebidas', qtd: 2, disponivel: 5 },
    ]);
    expect(add([], coca, 50)[0]!.qtd).toBe(5);
    expect(add([], coca, 1.7)[0]!.qtd).toBe(1);
  });
  it('sums the same SKU, clamped', () => {
    let c = add([], coca, 2);
    c = add(c, coca, 2);
    expect(c).toHaveLength(1);
    expect(c[0]!.qtd).toBe(4);
    c = add(c, coca, 9);
    expect(c[0]!.qtd).toBe(5);
  });
  it('takes the fresher disponível of the product added again', () => {
    const c = add(add([], coca, 4), { ...coca, disponivel: 3 }, 1);
    expect(c[0]).toMatchObject({ qtd: 3, disponivel: 3 });
  });
  it('ignores a sold-out product, no units, or a quantity ≤ 0', () => {
    expect(add([], { ...coca, status: 'ESGOTADO' as never, disponivel: 3 })).toEqual([]);
    expect(add([], { ...coca, disponivel: 0 })).toEqual([]);
    expect(add([], coca, 0)).toEqual([]);
    expect(add([], coca, -2)).toEqual([]);
  });
  it('keeps the order of arrival', () => {
    expect(add(add([], coca), banana).map((i) => i.sku)).toEqual([coca.sku, banana.sku]);
  });
});

describe('alterar, remover, atualizarDisponivel, limpar', () => {
  const base = add(add([], coca, 3), banana, 2);
  it('alterar clamps to [1, disponível]', () => {
    expect(carrinhoReducer(base, { tipo: 'alterar', sku: coca.sku, qtd: 4 })[0]!.qtd).toBe(4);
    expect(carrinhoReducer(base, { tipo: 'alterar', sku: coca.sku, qtd: 99 })[0]!.qtd).toBe(5);
    expect(carrinhoReducer(base, { tipo: 'alterar', sku: coca.sku, qtd: 0 })[0]!.qtd).toBe(1);
    expect(carrinhoReducer(base, { tipo: 'alterar', sku: coca.sku, qtd: -3 })[0]!.qtd).toBe(1);
    expect(carrinhoReducer(base, { tipo: 'alterar', sku: coca.sku, qtd: Number.NaN })).toBe(base);
  });
  it('remover drops the SKU', () => {
    expect(carrinhoReducer(base, { tipo: 'remover', sku: coca.sku }).map((i) => i.sku)).toEqual([
      banana.sku,
    ]);
  });
  it('atualizarDisponivel lowers the quantity, and 0 removes the item', () => {
    expect(
      carrinhoReducer(base, { tipo: 'atualizarDisponivel', sku: coca.sku, disponivel: 1 })[0],
    ).toMatchObject({ qtd: 1, disponivel: 1 });
    expect(
      carrinhoReducer(base, { tipo: 'atualizarDisponivel', sku: coca.sku, disponivel: 10 })[0],
    ).toMatchObject({ qtd: 3, disponivel: 10 });
    expect(
      carrinhoReducer(base, { tipo: 'atualizarDisponivel', sku: coca.sku, disponivel: 0 }).map(
        (i) => i.sku,
      ),
    ).toEqual([banana.sku]);
  });
  it('limpar empties it', () => {
    expect(carrinhoReducer(base, { tipo: 'limpar' })).toEqual([]);
  });
  it('counts units and totals in integer cents', () => {
    expect(totalItens(base)).toBe(5);
    expect(totalCentavos(base)).toBe(3 * 899 + 2 * 549);
    const dez = carrinhoReducer([], {
      tipo: 'adicionar',
      produto: { ...coca, preco: 0.1, disponivel: 10 },
      qtd: 3,
    });
    expect(totalCentavos(dez)).toBe(30);
  });
});

describe('localStorage["giro.carrinho"]', () => {
  it('round-trips', () => {
    const c = add(add([], coca, 2), banana);
    salvar(c);
    expect(JSON.parse(localStorage.getItem(CHAVE)!)).toEqual(c);
    expect(carregar()).toEqual(c);
  });
  it('discards malformed data', () => {
    expect(lerCarrinho(null)).toEqual([]);
    expect(lerCarrinho('{não é json')).toEqual([]);
    expect(lerCarrinho('{"sku":"7894900011517"}')).toEqual([]);
    expect(lerCarrinho('"texto"')).toEqual([]);
    const bom = {
      sku: coca.sku,
      nome: 'Coca',
      preco: 8.99,
      categoria: null,
      qtd: 2,
      disponivel: 5,
    };
    const ruins = [
      { ...bom, sku: '123' },
      { ...bom, nome: '  ' },
      { ...bom, preco: -1 },
      { ...bom, preco: '8.99' },
      { ...bom, qtd: 0 },
      { ...bom, qtd: 1.5 },
      { ...bom, disponivel: 0 },
      { ...bom, categoria: 7 },
      null,
      42,
    ];
    expect(lerCarrinho(JSON.stringify([...ruins, bom, { ...bom, qtd: 3 }]))).toEqual([bom]);
  });
  it('clamps a saved quantity above disponível', () => {
    expect(
      lerCarrinho(
        JSON.stringify([
          { sku: coca.sku, nome: 'Coca', preco: 8.99, categoria: 'bebidas', qtd: 9, disponivel: 4 },
        ]),
      )[0]!.qtd,
    ).toBe(4);
  });
});

describe('mensagens do 409', () => {
  it('says what was adjusted', () => {
    expect(mensagemSemEstoque(0)).toBe('Esgotou enquanto você comprava — removemos do carrinho.');
    expect(mensagemSemEstoque(1)).toBe('Só resta 1 unidade — ajustamos a quantidade.');
    expect(mensagemSemEstoque(7)).toBe('Só restam 7 unidades — ajustamos a quantidade.');
  });
});
