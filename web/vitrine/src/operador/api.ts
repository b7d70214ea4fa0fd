// The mercado API as the operator pages see it: same origin as the storefront, under /api
// (SPEC §6.1, §9.5). The operator's session is mercado's own (cookie MERCADO_SESSAO); writes
// echo the XSRF-MERCADO cookie in X-XSRF-TOKEN.

import { clienteApi } from '../../../shared/api';
import type { ServicoOperador } from '../../../shared/Operador';
export { ErroApi, lerCookie, type Sessao } from '../../../shared/api';

export const COOKIE_CSRF = 'XSRF-MERCADO';

export interface SolicitacaoAberta {
  eventId: string;
  qtd: number;
  status: 'PENDENTE' | 'AGUARDANDO_LOTE';
  criadaEm: string;
}

export interface ProdutoOperador {
  sku: string;
  nome: string;
  preco: number;
  status: 'DISPONIVEL' | 'ESGOTADO';
  prateleira: number;
  estoqueMinimo: number;
  estoqueIdeal: number;
  categoria: string | null;
  reposicaoAberta: SolicitacaoAberta | null;
}

export interface NoEstoque {
  sku: string;
  descricao: string | null;
  categoria: string | null;
  tags: string[] | null;
}

export interface NovoProduto {
  sku: string;
  nome: string;
  preco: number;
  estoqueMinimo: number;
  estoqueIdeal: number;
}

const api = clienteApi(COOKIE_CSRF);

/** Requests, the session and the login: the shared client (a 401 is the query client's business). */
export const { pedir, sessaoAtual, entrar, sair } = api;

/** The operator pages' service for the shared login and shell (shared/Operador.tsx). */
export const servico: ServicoOperador = { nome: 'Mercado', sessaoAtual, entrar, sair };

export const produtos = () => pedir<ProdutoOperador[]>('/operacao/produtos');

export const noEstoque = (sku: string) =>
  pedir<NoEstoque>(`/operacao/estoque/produtos/${encodeURIComponent(sku)}`);

export const cadastrar = (p: NovoProduto) =>
  pedir<unknown>('/produtos', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(p),
  });
