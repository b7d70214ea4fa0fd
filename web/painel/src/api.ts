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
  /** Valid units only (SPEC §6.2.1). */
  saldoDisponivel: number;
  /** Units in expired lots (absent from an older estoque). */
  saldoVencido?: number;
}

/** A SKU's state in the inventory: a partition (SPEC §6.2.1). */
export type EstadoSku = 'com-saldo' | 'so-vencido' | 'zerado';

/** The list's `estado` filter: a state, or one of the KPIs' groups. */
export type FiltroEstado = EstadoSku | 'sem-saldo-valido' | 'vencendo' | 'com-demanda';

export interface ItemInventario {
  sku: string;
  descricao: string;
  categoria: string | null;
  estado: EstadoSku;
  saldoValido: number;
  saldoVencido: number;
  demandaAberta: number;
  demandasAbertas: number;
  proximaValidade: string | null;
}

export interface PaginaInventario {
  itens: ItemInventario[];
  total: number;
  pagina: number;
  tamanho: number;
}

export interface LoteInventario {
  codigoLote: string;
  quantidade: number;
  quantidadeDisponivel: number;
  validade: string | null;
  vencido: boolean;
  recebidoEm: string;
}

export interface Movimento {
  tipo: 'entrada' | 'expedicao' | 'baixa';
  quando: string;
  codigoLote: string;
  qtd: number;
  /** Who entered the lot (`entrada`) or wrote it off (`baixa`); a shipment is the system's. */
  operador?: string;
  motivo?: MotivoBaixa;
  eventId?: string;
}

/** Why units are written off (issue 39, SPEC §6.2.1). */
export type MotivoBaixa = 'vencido' | 'avaria' | 'furto' | 'ajuste';

export interface DetalheInventario extends ItemInventario {
  ncm: string;
  tags: string[] | null;
  lotes: LoteInventario[];
  movimentos: Movimento[];
}

export interface Baixa {
  sku: string;
  codigoLote: string;
  qtd: number;
  motivo: MotivoBaixa;
  /** Units left in the lot. */
  restante: number;
  operador: string;
  baixadoEm: string;
  saldoValido: number;
  saldoVencido: number;
}

export interface FiltroInventario {
  busca?: string;
  estado?: FiltroEstado;
  pagina?: number;
  tamanho?: number;
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
  /** Sent once the operator confirmed a lot already expired; estoque takes such a lot in with or
   * without it (as the original does), recorded as expired for the write-off (SPEC §6.2.1). */
  confirmarVencido?: boolean;
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
  // `opcional=true`: a new SKU is a 204, not a 404 the browser would log (issue 39); an older
  // estoque's 404 means the same.
  const res = await api.buscar(`/produtos/${encodeURIComponent(sku)}?opcional=true`);
  if (res.status === 404 || res.status === 204) return null;
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

/** The query string of a filter (blank values left out). */
export function consultaInventario(f: FiltroInventario): string {
  const q = new URLSearchParams();
  if (f.busca?.trim()) q.set('busca', f.busca.trim());
  if (f.estado) q.set('estado', f.estado);
  if (f.pagina && f.pagina > 1) q.set('pagina', String(f.pagina));
  if (f.tamanho) q.set('tamanho', String(f.tamanho));
  const s = q.toString();
  return s ? `?${s}` : '';
}

export const inventario = (f: FiltroInventario) =>
  pedir<PaginaInventario>(`/painel/estoque${consultaInventario(f)}`);

export const inventarioSku = (sku: string) =>
  pedir<DetalheInventario>(`/painel/estoque/${encodeURIComponent(sku)}`);

export function baixarLote(
  sku: string,
  codigoLote: string,
  quantidade: number,
  motivo: MotivoBaixa,
  /** The lot's units on screen: a write-off sent twice is refused the second time (409). */
  quantidadeDisponivel: number,
): Promise<Baixa> {
  return pedir<Baixa>(
    `/painel/estoque/${encodeURIComponent(sku)}/lotes/${encodeURIComponent(codigoLote)}/baixa`,
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ quantidade, motivo, quantidadeDisponivel }),
    },
  );
}
