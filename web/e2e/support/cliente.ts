// A small HTTP client for the services' APIs, for the launcher and for tests that play another
// shopper or the operator behind the scenes (Node's fetch; cookies kept by hand).

export interface Resposta {
  status: number;
  corpo: unknown;
}

async function resposta(res: Response): Promise<Resposta> {
  const texto = await res.text();
  let corpo: unknown;
  try {
    corpo = texto ? JSON.parse(texto) : null;
  } catch {
    corpo = texto;
  }
  return { status: res.status, corpo };
}

export async function get(url: string): Promise<Resposta> {
  return resposta(await fetch(url, { headers: { Accept: 'application/json' } }));
}

export async function postJson(url: string, corpo: unknown): Promise<Resposta> {
  return resposta(
    await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(corpo),
    }),
  );
}

/** The operator with a session on one service: `GET /sessao` for the CSRF cookie, then the login form. */
export class Operador {
  private cookies = new Map<string, string>();

  private constructor(
    readonly base: string,
    private readonly cookieCsrf: string,
  ) {}

  static async entrar(
    base: string,
    cookieCsrf: string,
    usuario: string,
    senha: string,
  ): Promise<Operador> {
    const op = new Operador(base, cookieCsrf);
    await op.pedir('GET', '/sessao');
    const r = await op.pedir(
      'POST',
      '/sessao',
      new URLSearchParams({ usuario, senha }).toString(),
      'application/x-www-form-urlencoded',
    );
    if (r.status !== 204)
      throw new Error(`login em ${base} respondeu ${r.status}: ${JSON.stringify(r.corpo)}`);
    return op;
  }

  private guardar(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [par] = c.split(';');
      const i = par!.indexOf('=');
      this.cookies.set(par!.slice(0, i).trim(), par!.slice(i + 1).trim());
    }
  }

  async pedir(
    metodo: string,
    caminho: string,
    corpo?: string,
    tipo = 'application/json',
  ): Promise<Resposta> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (this.cookies.size)
      headers.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (metodo !== 'GET') headers['X-XSRF-TOKEN'] = this.cookies.get(this.cookieCsrf) ?? '';
    if (corpo !== undefined) headers['Content-Type'] = tipo;
    const res = await fetch(`${this.base}${caminho}`, { method: metodo, headers, body: corpo });
    this.guardar(res);
    return resposta(res);
  }

  post(caminho: string, corpo: unknown): Promise<Resposta> {
    return this.pedir('POST', caminho, JSON.stringify(corpo));
  }

  get(caminho: string): Promise<Resposta> {
    return this.pedir('GET', caminho);
  }
}
