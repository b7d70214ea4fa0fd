// Starts the real market for the browser tests and stops it afterwards:
// the private PostgreSQL (scripts/pg start, unless GIRO_TEST_PG_URL names a server), fresh
// databases, `giro migrate`, the tag-worker, and two markets — each an estoque and a mercado
// (`$CARGO_TARGET_DIR/debug/giro`) on free ports with their web listeners serving the built
// fronts — with the demo catalogue loaded through the APIs and the shelves restocked.
//
//   principal  the storefront and dashboard most tests use (reservation TTL 15 min, tag-worker)
//   eventos    no demo catalogue, no tag-worker, outboxes that give up after 2 attempts of 1 s
//              (dead letters within seconds of a pause): the event console and the operator pages
//   curto      reservations of 4 s with a sweep every second (expired-order states), no
//              tag-worker (products stay unclassified), and a mercado a test may pause
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir, homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { get, Operador } from './cliente';
import { CATALOGO, carregarDemo } from './demo';

const aqui = dirname(fileURLToPath(import.meta.url));
export const WEB = resolve(aqui, '../..');
export const RAIZ = resolve(WEB, '..');
export const RESULTADOS = join(WEB, 'test-results');

export interface Mercado {
  nome: string;
  vitrine: string; // the storefront's web listener (mercado)
  painel: string; // the dashboard's web listener (estoque)
  mercadoApi: string;
  estoqueApi: string;
  pidMercado: number;
  pidEstoque: number;
  ttl: string;
}

export interface Estado {
  usuario: string;
  senha: string;
  mercados: Record<'principal' | 'curto' | 'eventos', Mercado>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function portaLivre(): Promise<number> {
  return new Promise((ok, falha) => {
    const s = createServer();
    s.unref();
    s.on('error', falha);
    s.listen(0, '127.0.0.1', () => {
      const porta = (s.address() as { port: number }).port;
      s.close(() => ok(porta));
    });
  });
}

async function esperar<T>(
  oque: string,
  ms: number,
  f: () => Promise<T | undefined | null | false>,
  processos: Processo[] = [],
): Promise<T> {
  const limite = Date.now() + ms;
  let ultimo: unknown;
  for (;;) {
    const morto = processos.find((p) => p.filho.exitCode !== null || p.filho.signalCode !== null);
    if (morto)
      throw new Error(
        `${morto.nome} terminou (${morto.filho.exitCode ?? morto.filho.signalCode}) antes de: ${oque}; log em ${morto.log}`,
      );
    try {
      const v = await f();
      if (v) return v;
    } catch (e) {
      ultimo = e;
    }
    if (Date.now() > limite)
      throw new Error(`prazo de ${ms} ms esgotado esperando ${oque}${ultimo ? `: ${ultimo}` : ''}`);
    await sleep(100);
  }
}

function psql(): string {
  const dirs = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))
    : [];
  for (const d of dirs) {
    const p = `/usr/lib/postgresql/${d}/bin/psql`;
    if (existsSync(p)) return p;
  }
  return 'psql';
}

function sql(adminUrl: string, comando: string): string {
  return execFileSync(
    psql(),
    [adminUrl, '-X', '-q', '-t', '-A', '-v', 'ON_ERROR_STOP=1', '-c', comando],
    { encoding: 'utf8' },
  );
}

const dbUrl = (adminUrl: string, nome: string) => {
  const u = new URL(adminUrl);
  u.pathname = `/${nome}`;
  return u.toString();
};

interface Processo {
  nome: string;
  filho: ChildProcess;
  log: string;
}

export class Lancador {
  private processos: Processo[] = [];
  private bancos: string[] = [];
  private adminUrl = '';
  private trabalho = mkdtempSync(join(tmpdir(), 'giro-e2e-'));

  private iniciar(
    nome: string,
    comando: string,
    args: string[],
    env: Record<string, string>,
    cwd = this.trabalho,
  ): Processo {
    mkdirSync(join(RESULTADOS, 'logs'), { recursive: true });
    const log = join(RESULTADOS, 'logs', `${nome}.log`);
    const fd = openSync(log, 'w');
    const base: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? homedir(),
      RUST_LOG: process.env.RUST_LOG ?? 'info',
    };
    const filho = spawn(comando, args, {
      cwd,
      env: { ...base, ...env },
      stdio: ['ignore', fd, fd],
    });
    const p = { nome, filho, log };
    this.processos.push(p);
    return p;
  }

  async subir(): Promise<Estado> {
    const giro =
      process.env.GIRO_BIN ??
      join(process.env.CARGO_TARGET_DIR ?? join(homedir(), '.cache/giro/target'), 'debug/giro');
    if (!existsSync(giro))
      throw new Error(`${giro} não existe: rode \`cargo build\` (ou defina GIRO_BIN)`);
    for (const app of ['vitrine', 'painel']) {
      if (!existsSync(join(WEB, app, 'dist/index.html')))
        throw new Error(`web/${app}/dist não existe: rode \`npm run build\` em web/`);
    }

    this.adminUrl =
      process.env.GIRO_TEST_PG_URL ||
      execFileSync(join(RAIZ, 'scripts/pg'), ['start'], { encoding: 'utf8' }).trim();
    this.varrerBancosAntigos();

    const usuario = 'operador';
    const senha = `senha-${randomBytes(8).toString('hex')}`;
    const tokens = {
      MERCADO_TOKEN_SERVICO: randomBytes(32).toString('hex'),
      ESTOQUE_TOKEN_SERVICO: randomBytes(32).toString('hex'),
    };
    const tagToken = randomBytes(16).toString('hex');

    // The tag-worker (keyword classifier: no LLM key, whatever a .env says).
    const venv = execFileSync(join(RAIZ, 'scripts/tag-worker-setup'), { encoding: 'utf8' }).trim();
    const portaTag = await portaLivre();
    const tag = this.iniciar(
      'tag-worker',
      join(venv, 'bin/python'),
      ['-m', 'app.cli', '--host', '127.0.0.1', '--port', String(portaTag)],
      { GROQ_API_KEY: '', TAG_WORKER_TOKEN: tagToken },
      join(RAIZ, 'tag-worker'),
    );
    const tagUrl = `http://127.0.0.1:${portaTag}`;

    const subirMercado = async (
      nome: 'principal' | 'curto' | 'eventos',
      extraMercado: Record<string, string>,
      tagWorker: string,
      extraAmbos: Record<string, string> = {},
      demo = true,
    ): Promise<Mercado> => {
      const [pMercado, pEstoque, pVitrine, pPainel] = [
        await portaLivre(),
        await portaLivre(),
        await portaLivre(),
        await portaLivre(),
      ];
      const dbs = {
        mercado: `giro_e2e_${process.pid}_${nome}_mercado`,
        estoque: `giro_e2e_${process.pid}_${nome}_estoque`,
      };
      for (const db of Object.values(dbs)) {
        sql(this.adminUrl, `CREATE DATABASE ${db}`);
        this.bancos.push(db);
      }
      const comum = {
        ...tokens,
        OPERADOR_USUARIO: usuario,
        OPERADOR_SENHA: senha,
        MERCADO_DB_URL: dbUrl(this.adminUrl, dbs.mercado),
        ESTOQUE_DB_URL: dbUrl(this.adminUrl, dbs.estoque),
        GIRO_HTTP_ENDERECO: '127.0.0.1',
        ...extraAmbos,
      };
      execFileSync(giro, ['migrate', '--db', 'all'], {
        cwd: this.trabalho,
        env: { PATH: process.env.PATH ?? '', ...comum },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      const estoque = this.iniciar(`${nome}-estoque`, giro, ['estoque', 'serve'], {
        ...comum,
        ESTOQUE_PORTA: String(pEstoque),
        MERCADO_EVENTOS_URL: `http://127.0.0.1:${pMercado}`,
        TAG_WORKER_URL: tagWorker,
        TAG_WORKER_TOKEN: tagToken,
        GIRO_TAGS_TIMEOUT: '2s',
        GIRO_TAGS_RECLASSIFICACAO_HABILITADA: 'false',
        GIRO_WEB_DIR_PAINEL: join(WEB, 'painel/dist'),
        GIRO_WEB_PORTA_PAINEL: String(pPainel),
        GIRO_WEB_URL_VITRINE: `http://127.0.0.1:${pVitrine}`,
      });
      const mercado = this.iniciar(`${nome}-mercado`, giro, ['mercado', 'serve'], {
        ...comum,
        MERCADO_PORTA: String(pMercado),
        ESTOQUE_EVENTOS_URL: `http://127.0.0.1:${pEstoque}`,
        ESTOQUE_URL: `http://127.0.0.1:${pEstoque}`,
        GIRO_WEB_DIR_VITRINE: join(WEB, 'vitrine/dist'),
        GIRO_WEB_PORTA_VITRINE: String(pVitrine),
        ...extraMercado,
      });
      const m: Mercado = {
        nome,
        vitrine: `http://127.0.0.1:${pVitrine}`,
        painel: `http://127.0.0.1:${pPainel}`,
        mercadoApi: `http://127.0.0.1:${pMercado}`,
        estoqueApi: `http://127.0.0.1:${pEstoque}`,
        pidMercado: mercado.filho.pid!,
        pidEstoque: estoque.filho.pid!,
        ttl: extraMercado.GIRO_RESERVA_TTL ?? '15m',
      };
      const vivos = [estoque, mercado, tag];
      for (const url of [
        `${m.estoqueApi}/readyz`,
        `${m.mercadoApi}/readyz`,
        `${m.painel}/`,
        `${m.vitrine}/`,
      ]) {
        await esperar(url, 30_000, async () => (await fetch(url)).ok, vivos);
      }
      const opEstoque = await Operador.entrar(m.estoqueApi, 'XSRF-ESTOQUE', usuario, senha);
      const opMercado = await Operador.entrar(m.mercadoApi, 'XSRF-MERCADO', usuario, senha);
      if (!demo) return m;
      await carregarDemo(opEstoque, opMercado);
      // The outbox restocks every shelf whose lot is valid up to its ideal; pão and sabão stay
      // sold out with a pent-up demand each.
      await esperar(
        `as prateleiras de ${nome} reabastecidas`,
        30_000,
        async () => {
          const produtos = (await get(`${m.mercadoApi}/produtos`)).corpo as {
            sku: string;
            disponivel: number;
          }[];
          const demandas = (await opEstoque.get('/painel/demandas')).corpo as unknown[];
          return (
            CATALOGO.every(
              (i) =>
                produtos.find((p) => p.sku === i.sku)?.disponivel === (i.vencido ? 0 : i.ideal),
            ) && demandas.length === 2
          );
        },
        vivos,
      );
      return m;
    };

    await esperar('o tag-worker', 60_000, async () => (await fetch(`${tagUrl}/saude`)).ok, [tag]);
    const principal = await subirMercado('principal', {}, tagUrl);
    const curto = await subirMercado(
      'curto',
      { GIRO_RESERVA_TTL: '4s', GIRO_RESERVA_INTERVALO: '1s' },
      'http://127.0.0.1:9',
    );
    const eventos = await subirMercado(
      'eventos',
      {},
      'http://127.0.0.1:9',
      { GIRO_OUTBOX_MAX_TENTATIVAS: '2', GIRO_OUTBOX_TIMEOUT: '1s', GIRO_ESTOQUE_TIMEOUT: '1s' },
      false,
    );
    const estado: Estado = { usuario, senha, mercados: { principal, curto, eventos } };
    writeFileSync(
      join(RESULTADOS, 'e2e-estado.json'),
      JSON.stringify({ ...estado, senha: '(ver OPERADOR_SENHA no processo)' }, null, 2),
    );
    return estado;
  }

  private varrerBancosAntigos() {
    // Databases of an earlier run that died before its teardown (its pid is gone).
    const nomes = sql(
      this.adminUrl,
      "SELECT datname FROM pg_database WHERE datname LIKE 'giro\\_e2e\\_%'",
    )
      .split('\n')
      .filter(Boolean);
    for (const n of nomes) {
      const pid = Number(n.split('_')[2]);
      let vivo: boolean;
      try {
        process.kill(pid, 0);
        vivo = true;
      } catch {
        vivo = false;
      }
      if (vivo) continue;
      // Never WITH (FORCE): the cluster is shared; a database someone is still connected to stays.
      try {
        sql(this.adminUrl, `DROP DATABASE IF EXISTS ${n}`);
      } catch {
        // in use: left for a later sweep
      }
    }
  }

  async descer(): Promise<void> {
    for (const p of this.processos) {
      if (p.filho.exitCode === null && p.filho.signalCode === null) {
        try {
          process.kill(p.filho.pid!, 'SIGCONT'); // a test may have paused it
        } catch {
          /* gone */
        }
        p.filho.kill('SIGTERM');
      }
    }
    const limite = Date.now() + 15_000;
    while (
      this.processos.some((p) => p.filho.exitCode === null && p.filho.signalCode === null) &&
      Date.now() < limite
    )
      await sleep(50);
    for (const p of this.processos)
      if (p.filho.exitCode === null && p.filho.signalCode === null) p.filho.kill('SIGKILL');
    for (const db of this.bancos) {
      try {
        sql(this.adminUrl, `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      } catch (e) {
        console.warn(`não consegui apagar ${db}: ${e}`);
      }
    }
  }

  /** Exit codes of the services (0 each after SIGTERM = graceful shutdown). */
  saidas(): Record<string, number | string | null> {
    return Object.fromEntries(
      this.processos.map((p) => [p.nome, p.filho.exitCode ?? p.filho.signalCode]),
    );
  }
}
