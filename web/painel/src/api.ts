// The estoque API as the dashboard sees it: same origin, under /api (SPEC §8.2, §9.5). The
// operator's session is a cookie; writes echo the XSRF-ESTOQUE cookie in X-XSRF-TOKEN.

import { clienteApi } from '../../shared/api';
import type { ServicoOperador } from '../../shared/Operador';
export { ErroApi, lerCookie, type Sessao } from '../../shared/api';

export const COOKIE_CSRF = 'XSRF-ESTOQUE';

export interface ProdutoEstoque {
  sku: string;
  descricao: string;
  ncm: string;
  tags: string[] | null;
  categoria: string | null;
  saldoDisponivel: number;
}

export interface Resumo {
  skusCadastrados: number;
  skusSemSaldo: number;
  demandasAbertas: number;
  lotesVencendo: number;
}

export interface Demanda {
  id: number;
  sku: string;
  descricao: string;
  qtdSolicitada: number;
  registradoEm: string;
}

export interface Reposicao {
  eventId: string;
  sku: string;
  descricao: string;
  qtd: number;
  codigoLote: string;
  expedidoEm: string;
  entregueEm: string | null;
}

export interface EntradaLote {
  sku: string;
  codigoLote: string;
  quantidade: number;
  validade?: string;
  descricao?: string;
  ncm?: string;
}

export interface LoteRegistrado {
  loteId: number;
  sku: string;
  saldoDisponivel: number;
  classificado: boolean;
  demandasAtendidas: number;
}

const api = clienteApi(COOKIE_CSRF);

/** Requests, the session and the login: the shared client (a 401 is the query client's business). */
export const { pedir, sessaoAtual, entrar, sair } = api;

/** The dashboard's service for the shared login and shell (shared/Operador.tsx). */
export const servico: ServicoOperador = { nome: 'Estoque', sessaoAtual, entrar, sair };

export const resumo = () => pedir<Resumo>('/painel/resumo');
export const demandas = () => pedir<Demanda[]>('/painel/demandas');
export const reposicoes = () => pedir<Reposicao[]>('/painel/reposicoes?limite=20');

/** null: SKU unknown to the warehouse (404). */
export async function produto(sku: string): Promise<ProdutoEstoque | null> {
  const res = await api.buscar(`/produtos/${encodeURIComponent(sku)}`);
  if (res.status === 404) return null;
  if (!res.ok) throw await api.falha(res);
  return (await res.json()) as ProdutoEstoque;
}

export function registrarLote(entrada: EntradaLote): Promise<LoteRegistrado> {
  return pedir<LoteRegistrado>('/lotes', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(entrada),
  });
}
