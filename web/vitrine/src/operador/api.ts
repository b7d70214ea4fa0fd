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
  /** In the public catalogue (issue 26). */
  listado: boolean;
  /** Issue 39: the owner's description, and the image's versioned URL (API path) or null. */
  descricao: string | null;
  imagem: string | null;
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

// Issue 26: the shop owner's orders and product changes.

export type StatusPedido = 'AGUARDANDO_PAGAMENTO' | 'PAGO' | 'CANCELADO' | 'EXPIRADO';

export interface PedidoResumo {
  id: string;
  numero: number;
  status: StatusPedido;
  total: number;
  criadoEm: string;
  itens: number;
  unidades: number;
}

export interface PaginaPedidos {
  itens: PedidoResumo[];
  total: number;
  pagina: number;
  tamanho: number;
}

export interface PedidoOperador {
  id: string;
  numero: number;
  status: StatusPedido;
  total: number;
  criadoEm: string;
  reservaExpiraEm: string | null;
  itens: { sku: string; nome: string; qtd: number; precoUnitario: number }[];
  reservas: {
    sku: string;
    qtd: number;
    status: 'ATIVA' | 'CONFIRMADA' | 'EXPIRADA';
    expiraEm: string;
  }[];
  pagamento: { pagoEm: string | null } | null;
}

export interface FiltroPedidos {
  /** The order's number (issue 39). */
  numero?: number;
  status?: StatusPedido;
  /** Instants (ISO-8601): the page turns the owner's local dates into them. */
  de?: string;
  ate?: string;
  pagina?: number;
}

export function listarPedidos(f: FiltroPedidos): Promise<PaginaPedidos> {
  const q = new URLSearchParams();
  if (f.numero) q.set('numero', String(f.numero));
  if (f.status) q.set('status', f.status);
  if (f.de) q.set('de', f.de);
  if (f.ate) q.set('ate', f.ate);
  if (f.pagina && f.pagina > 1) q.set('pagina', String(f.pagina));
  const qs = q.toString();
  return pedir<PaginaPedidos>(`/operacao/pedidos${qs ? `?${qs}` : ''}`);
}

export const pedidoOperador = (id: string) =>
  pedir<PedidoOperador>(`/operacao/pedidos/${encodeURIComponent(id)}`);

/** Cancels an unpaid order (issue 39): its reserved units go back to the shelf. */
export const cancelarPedido = (id: string) =>
  pedir<PedidoOperador>(`/operacao/pedidos/${encodeURIComponent(id)}/cancelamento`, {
    method: 'POST',
  });

export interface AlteracaoProduto {
  preco?: number;
  estoqueMinimo?: number;
  estoqueIdeal?: number;
  listado?: boolean;
  nome?: string;
  /** Blank clears it. */
  descricao?: string;
  categoria?: string;
}

export const alterarProduto = (sku: string, a: AlteracaoProduto) =>
  pedir<ProdutoOperador>(`/operacao/produtos/${encodeURIComponent(sku)}`, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(a),
  });

/** The largest image the API takes (PUT /operacao/produtos/{sku}/imagem, issue 39). */
export const IMAGEM_MAX = 1024 * 1024;
export const TIPOS_IMAGEM = ['image/jpeg', 'image/png', 'image/webp'];

/** Uploads a product's image as the raw body, typed as the file is. */
export const enviarImagem = (sku: string, arquivo: File) =>
  pedir<ProdutoOperador>(`/operacao/produtos/${encodeURIComponent(sku)}/imagem`, {
    method: 'PUT',
    headers: { 'Content-Type': arquivo.type },
    body: arquivo,
  });

export const removerImagem = (sku: string) =>
  pedir<ProdutoOperador>(`/operacao/produtos/${encodeURIComponent(sku)}/imagem`, {
    method: 'DELETE',
  });
