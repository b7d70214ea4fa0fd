// The mercado API as the storefront sees it: same origin, under /api (SPEC §8.1, §9.5).

import { clienteApi, ErroApi } from '../../shared/api';
export { ErroApi } from '../../shared/api';

export type StatusVitrine = 'DISPONIVEL' | 'ESGOTADO';

export interface Produto {
  sku: string;
  nome: string;
  preco: number;
  status: StatusVitrine;
  disponivel: number;
  categoria: string | null;
  tags: string[];
  /** A restock is in flight for the SKU (sent to the warehouse, not yet answered). */
  reposicaoACaminho?: boolean;
  /** In the public catalogue; an unlisted product's page says it left (issue 26). */
  listado?: boolean;
  /** The owner's description, and the image's API path (versioned) or null (issue 39). */
  descricao?: string | null;
  imagem?: string | null;
}

export type StatusPedido = 'AGUARDANDO_PAGAMENTO' | 'PAGO' | 'CANCELADO' | 'EXPIRADO';

export interface ItemPedido {
  sku: string;
  nome: string;
  qtd: number;
  precoUnitario: number;
}

export interface Pedido {
  id: string;
  /** The short number people read out (issue 26). */
  numero?: number;
  status: StatusPedido;
  total: number;
  criadoEm: string;
  reservaExpiraEm: string | null;
  itens: ItemPedido[];
}

export interface PedidoFechado {
  pedidoId: string;
  numero?: number;
  criadoEm?: string;
  total: number;
  reservaExpiraEm: string;
}

/** Requests to mercado's public API: the shared client (no session, no CSRF). */
const { pedir } = clienteApi();

/** null when absent (404). */
async function talvez<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p;
  } catch (e) {
    if (e instanceof ErroApi && e.status === 404) return null;
    throw e;
  }
}

export interface Filtro {
  categoria?: string;
  busca?: string;
}

export function listarProdutos(filtro: Filtro = {}): Promise<Produto[]> {
  const q = new URLSearchParams();
  if (filtro.categoria) q.set('categoria', filtro.categoria);
  if (filtro.busca) q.set('busca', filtro.busca);
  const qs = q.toString();
  return pedir<Produto[]>(`/produtos${qs ? `?${qs}` : ''}`);
}

export function buscarProduto(sku: string): Promise<Produto | null> {
  return talvez(pedir<Produto>(`/produtos/${encodeURIComponent(sku)}`));
}

/** A fresh Idempotency-Key (getRandomValues also works on plain http, randomUUID does not). */
export function novaChave(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

/** Whether a checkout's failure leaves its outcome unknown and worth one more try: a 503 (the
 * database was briefly unavailable, or a COMMIT's answer was lost) or no answer at all. */
function repetivel(e: unknown): boolean {
  return e instanceof ErroApi && (e.status === 503 || e.status === 0);
}

/** `chave` is the checkout attempt's Idempotency-Key: a retry of the same cart sends the same
 * one, so an answer lost on the way never reserves twice. A 503 or a lost answer is retried
 * once, after `pausaMs`, with the same key (one is made when none is given): the order the first
 * try may have created is answered again, never a second one (issue 28). */
export async function fecharPedido(
  itens: { sku: string; qtd: number }[],
  chave?: string,
  pausaMs = 1000,
): Promise<PedidoFechado> {
  const k = chave ?? novaChave();
  const tentar = () =>
    pedir<PedidoFechado>('/pedidos', {
      method: 'POST',
      body: JSON.stringify({ itens }),
      headers: { 'Idempotency-Key': k },
    });
  try {
    return await tentar();
  } catch (e) {
    if (!repetivel(e)) throw e;
    await new Promise((r) => setTimeout(r, pausaMs));
    return tentar();
  }
}

export function buscarPedido(id: string): Promise<Pedido | null> {
  return talvez(pedir<Pedido>(`/pedidos/${encodeURIComponent(id)}`));
}

/** Paying a paid order again changes nothing, so a 503 or a lost answer is retried once, after
 * `pausaMs`, as a checkout is. */
export async function pagarPedido(id: string, pausaMs = 1000): Promise<Pedido> {
  const tentar = () =>
    pedir<Pedido>(`/pedidos/${encodeURIComponent(id)}/pagamento`, { method: 'POST' });
  try {
    return await tentar();
  } catch (e) {
    if (!repetivel(e)) throw e;
    await new Promise((r) => setTimeout(r, pausaMs));
    return tentar();
  }
}
