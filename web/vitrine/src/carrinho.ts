// The cart (SPEC §8.1): kept in localStorage["giro.carrinho"] as an array of
// {sku, nome, preco, categoria, qtd, disponivel}; quantities always within [1, disponivel].

import { centavos } from '../../shared/formato';
import { skuValido } from '../../shared/sku';
import type { Produto } from './api';

export const CHAVE = 'giro.carrinho';

export interface ItemCarrinho {
  sku: string;
  nome: string;
  preco: number;
  categoria: string | null;
  qtd: number;
  disponivel: number;
}

export type Acao =
  | {
      tipo: 'adicionar';
      produto: Pick<Produto, 'sku' | 'nome' | 'preco' | 'categoria' | 'status' | 'disponivel'>;
      qtd: number;
    }
  | { tipo: 'alterar'; sku: string; qtd: number }
  | { tipo: 'remover'; sku: string }
  | { tipo: 'atualizarDisponivel'; sku: string; disponivel: number }
  | { tipo: 'limpar' }
  | { tipo: 'substituir'; itens: ItemCarrinho[] };

const limitar = (qtd: number, disponivel: number) =>
  Math.min(Math.max(Math.trunc(qtd), 1), disponivel);

export function carrinhoReducer(itens: ItemCarrinho[], acao: Acao): ItemCarrinho[] {
  switch (acao.tipo) {
    case 'adicionar': {
      const { produto } = acao;
      if (produto.status === 'ESGOTADO' || !(produto.disponivel > 0) || !(acao.qtd > 0))
        return itens;
      const atual = itens.find((i) => i.sku === produto.sku);
      const base = {
        sku: produto.sku,
        nome: produto.nome,
        preco: produto.preco,
        categoria: produto.categoria,
        disponivel: produto.disponivel,
      };
      if (!atual) return [...itens, { ...base, qtd: limitar(acao.qtd, produto.disponivel) }];
      return itens.map((i) =>
        i.sku === produto.sku ? { ...base, qtd: limitar(i.qtd + acao.qtd, produto.disponivel) } : i,
      );
    }
    case 'alterar':
      if (!Number.isFinite(acao.qtd)) return itens;
      return itens.map((i) =>
        i.sku === acao.sku ? { ...i, qtd: limitar(acao.qtd, i.disponivel) } : i,
      );
    case 'remover':
      return itens.filter((i) => i.sku !== acao.sku);
    case 'atualizarDisponivel':
      if (!(acao.disponivel > 0)) return itens.filter((i) => i.sku !== acao.sku);
      return itens.map((i) =>
        i.sku === acao.sku
          ? { ...i, disponivel: acao.disponivel, qtd: Math.min(i.qtd, acao.disponivel) }
          : i,
      );
    case 'limpar':
      return [];
    case 'substituir':
      return acao.itens;
  }
}

/** Units in the cart (the header's badge). */
export function totalItens(itens: ItemCarrinho[]): number {
  return itens.reduce((s, i) => s + i.qtd, 0);
}

/** Total in integer cents. */
export function totalCentavos(itens: ItemCarrinho[]): number {
  return itens.reduce((s, i) => s + centavos(i.preco) * i.qtd, 0);
}

const inteiroPositivo = (n: unknown): n is number =>
  typeof n === 'number' && Number.isInteger(n) && n > 0;

function item(x: unknown): ItemCarrinho | null {
  if (typeof x !== 'object' || x === null) return null;
  const o = x as Record<string, unknown>;
  if (typeof o.sku !== 'string' || !skuValido(o.sku)) return null;
  if (typeof o.nome !== 'string' || !o.nome.trim()) return null;
  if (typeof o.preco !== 'number' || !Number.isFinite(o.preco) || o.preco <= 0) return null;
  if (o.categoria !== null && o.categoria !== undefined && typeof o.categoria !== 'string')
    return null;
  if (!inteiroPositivo(o.qtd) || !inteiroPositivo(o.disponivel)) return null;
  return {
    sku: o.sku,
    nome: o.nome,
    preco: o.preco,
    categoria: (o.categoria as string | null | undefined) ?? null,
    qtd: Math.min(o.qtd, o.disponivel),
    disponivel: o.disponivel,
  };
}

/** The saved cart; malformed data (not JSON, not an array, a bad item, a repeated SKU) is discarded. */
export function lerCarrinho(texto: string | null): ItemCarrinho[] {
  if (!texto) return [];
  let dados: unknown;
  try {
    dados = JSON.parse(texto);
  } catch {
    return [];
  }
  if (!Array.isArray(dados)) return [];
  const itens: ItemCarrinho[] = [];
  for (const x of dados) {
    const i = item(x);
    if (i && !itens.some((j) => j.sku === i.sku)) itens.push(i);
  }
  return itens;
}

export function carregar(storage: Storage = localStorage): ItemCarrinho[] {
  try {
    return lerCarrinho(storage.getItem(CHAVE));
  } catch {
    return [];
  }
}

export function salvar(itens: ItemCarrinho[], storage: Storage = localStorage): void {
  try {
    storage.setItem(CHAVE, JSON.stringify(itens));
  } catch {
    // Storage full or blocked: the cart lives on in memory for this visit.
  }
}
