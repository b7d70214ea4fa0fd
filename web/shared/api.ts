// The one API client of both fronts (storefront, operator pages, dashboard): same origin, under
// /api (SPEC §9.5); every non-2xx answer becomes an ErroApi with the problem+json body; writes
// of an operator session echo its XSRF cookie in X-XSRF-TOKEN. A lost session (401) is handled
// by the query client (see consultas.ts), not here.

/** A non-2xx answer (status 0: no answer at all) and its problem+json body, when there is one. */
export class ErroApi extends Error {
  constructor(
    readonly status: number,
    readonly problema: Record<string, unknown> | null,
  ) {
    super(typeof problema?.detail === 'string' ? problema.detail : `HTTP ${status}`);
    this.name = 'ErroApi';
  }

  /** The problem's `detail`, when the answer had one. */
  get detalhe(): string | null {
    return typeof this.problema?.detail === 'string' ? this.problema.detail : null;
  }
}

export interface Sessao {
  usuario: string;
}

export function lerCookie(nome: string): string | null {
  for (const parte of document.cookie.split(';')) {
    const [k, ...v] = parte.trim().split('=');
    if (k === nome) return decodeURIComponent(v.join('='));
  }
  return null;
}

async function falha(res: Response): Promise<ErroApi> {
  let problema: Record<string, unknown> | null;
  try {
    const texto = await res.text();
    const corpo: unknown = texto ? JSON.parse(texto) : null;
    problema = corpo && typeof corpo === 'object' ? (corpo as Record<string, unknown>) : null;
  } catch {
    problema = null;
  }
  return new ErroApi(res.status, problema);
}

/** A client of one service's API; `cookieCsrf` for the operator's writes (none: public API). */
export function clienteApi(cookieCsrf?: string) {
  async function buscar(caminho: string, init: RequestInit = {}): Promise<Response> {
    const metodo = (init.method ?? 'GET').toUpperCase();
    const headers = new Headers(init.headers);
    headers.set('Accept', 'application/json');
    if (typeof init.body === 'string' && !headers.has('Content-Type'))
      headers.set('Content-Type', 'application/json');
    if (cookieCsrf && metodo !== 'GET' && metodo !== 'HEAD') {
      // The CSRF cookie is handed out by GET /sessao; fetch it first when missing.
      if (!lerCookie(cookieCsrf))
        await fetch('/api/sessao?opcional=true', { headers: { Accept: 'application/json' } }).catch(
          () => undefined,
        );
      const token = lerCookie(cookieCsrf);
      if (token) headers.set('X-XSRF-TOKEN', token);
    }
    try {
      return await fetch(`/api${caminho}`, { ...init, headers });
    } catch {
      throw new ErroApi(0, null);
    }
  }

  /** The answer's JSON (undefined for 204), or an ErroApi. */
  async function pedir<T>(caminho: string, init?: RequestInit): Promise<T> {
    const res = await buscar(caminho, init);
    if (!res.ok) throw await falha(res);
    return (res.status === 204 ? undefined : await res.json()) as T;
  }

  /** The operator logged in, or null: asked with `opcional=true`, so nobody logged in is a 200
   * `{usuario: null}` and the login page logs no 401 in the console (issue 39); an older service's
   * 401 means the same. */
  async function sessaoAtual(): Promise<Sessao | null> {
    const res = await buscar('/sessao?opcional=true');
    if (res.status === 401) return null;
    if (!res.ok) throw await falha(res);
    const s = (await res.json()) as { usuario: string | null };
    return s.usuario ? { ...s, usuario: s.usuario } : null;
  }

  async function entrar(usuario: string, senha: string): Promise<void> {
    const res = await buscar('/sessao', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ usuario, senha }).toString(),
    });
    if (!res.ok) throw await falha(res);
  }

  async function sair(): Promise<void> {
    const res = await buscar('/sessao', { method: 'DELETE' });
    if (!res.ok && res.status !== 401) throw await falha(res);
  }

  return { buscar, pedir, falha, sessaoAtual, entrar, sair };
}
