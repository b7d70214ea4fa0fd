// The estoque API as the dashboard sees it: same origin, under /api (SPEC §8.2, §9.5). The
// operator's session is a cookie; writes echo the XSRF-ESTOQUE cookie in X-XSRF-TOKEN.

export const COOKIE_CSRF = 'XSRF-ESTOQUE';

export interface Sessao {
  usuario: string;
}

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

/** A non-2xx answer (status 0: no answer at all). */
export class ErroApi extends Error {
  constructor(
    readonly status: number,
    readonly detalhe: string | null,
  ) {
    super(detalhe ?? `HTTP ${status}`);
    this.name = 'ErroApi';
  }
}

/** Called on any 401 outside the session check: the dashboard goes back to the login. */
let aoPerderSessao: () => void = () => {};
export function quandoPerderSessao(f: () => void): void {
  aoPerderSessao = f;
}

export function lerCookie(nome: string): string | null {
  for (const parte of document.cookie.split(';')) {
    const [k, ...v] = parte.trim().split('=');
    if (k === nome) return decodeURIComponent(v.join('='));
  }
  return null;
}

async function falha(res: Response): Promise<ErroApi> {
  let detalhe: string | null = null;
  try {
    const corpo = (await res.json()) as { detail?: unknown };
    if (typeof corpo.detail === 'string') detalhe = corpo.detail;
  } catch {
    detalhe = null;
  }
  return new ErroApi(res.status, detalhe);
}

async function buscar(caminho: string, init: RequestInit = {}): Promise<Response> {
  const metodo = (init.method ?? 'GET').toUpperCase();
  const headers = new Headers(init.headers);
  headers.set('Accept', 'application/json');
  if (metodo !== 'GET' && metodo !== 'HEAD') {
    // The CSRF cookie is handed out by GET /sessao; fetch it first when missing.
    if (!lerCookie(COOKIE_CSRF))
      await fetch('/api/sessao', { headers: { Accept: 'application/json' } }).catch(
        () => undefined,
      );
    const token = lerCookie(COOKIE_CSRF);
    if (token) headers.set('X-XSRF-TOKEN', token);
  }
  try {
    return await fetch(`/api${caminho}`, { ...init, headers });
  } catch {
    throw new ErroApi(0, null);
  }
}

/** A request whose 401 means the session is gone. */
export async function pedir<T>(caminho: string, init?: RequestInit): Promise<T> {
  const res = await buscar(caminho, init);
  if (res.status === 401) aoPerderSessao();
  if (!res.ok) throw await falha(res);
  return (res.status === 204 ? undefined : await res.json()) as T;
}

/** The operator logged in, or null (401). */
export async function sessaoAtual(): Promise<Sessao | null> {
  const res = await buscar('/sessao');
  if (res.status === 401) return null;
  if (!res.ok) throw await falha(res);
  return (await res.json()) as Sessao;
}

export async function entrar(usuario: string, senha: string): Promise<void> {
  const res = await buscar('/sessao', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ usuario, senha }).toString(),
  });
  if (!res.ok) throw await falha(res);
}

export async function sair(): Promise<void> {
  const res = await buscar('/sessao', { method: 'DELETE' });
  if (!res.ok && res.status !== 401) throw await falha(res);
}

export const resumo = () => pedir<Resumo>('/painel/resumo');
export const demandas = () => pedir<Demanda[]>('/painel/demandas');
export const reposicoes = () => pedir<Reposicao[]>('/painel/reposicoes?limite=20');

/** null: SKU unknown to the warehouse (404). */
export async function produto(sku: string): Promise<ProdutoEstoque | null> {
  const res = await buscar(`/produtos/${encodeURIComponent(sku)}`);
  if (res.status === 404) return null;
  if (res.status === 401) aoPerderSessao();
  if (!res.ok) throw await falha(res);
  return (await res.json()) as ProdutoEstoque;
}

export function registrarLote(entrada: EntradaLote): Promise<LoteRegistrado> {
  return pedir<LoteRegistrado>('/lotes', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(entrada),
  });
}
