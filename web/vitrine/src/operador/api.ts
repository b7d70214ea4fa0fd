// The mercado API as the operator pages see it: same origin as the storefront, under /api
// (SPEC §6.1, §9.5). The operator's session is mercado's own (cookie MERCADO_SESSAO); writes
// echo the XSRF-MERCADO cookie in X-XSRF-TOKEN.

export const COOKIE_CSRF = 'XSRF-MERCADO';

export interface Sessao {
  usuario: string;
}

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

/** A non-2xx answer (status 0: no answer at all), with the problem's `detail`. */
export class ErroApi extends Error {
  constructor(
    readonly status: number,
    readonly detalhe: string | null,
  ) {
    super(detalhe ?? `HTTP ${status}`);
    this.name = 'ErroApi';
  }
}

let aoPerderSessao: () => void = () => {};
/** Called on any 401 outside the session check: the pages go back to the login. */
export function quandoPerderSessao(f: () => void): void {
  aoPerderSessao = f;
}

function lerCookie(nome: string): string | null {
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

export const produtos = () => pedir<ProdutoOperador[]>('/operacao/produtos');

export const noEstoque = (sku: string) =>
  pedir<NoEstoque>(`/operacao/estoque/produtos/${encodeURIComponent(sku)}`);

export const cadastrar = (p: NovoProduto) =>
  pedir<unknown>('/produtos', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(p),
  });
