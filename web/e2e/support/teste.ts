// The test fixture every spec uses: the running market (from the global setup), a page that fails
// the test on any console error or uncaught exception, and screenshots saved as artifacts.
import { test as base, expect, type Locator, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Estado, Mercado } from './lancador';
import { get, Operador, postJson } from './cliente';
import { diaSaoPaulo } from './demo';

export { expect };

const TELAS = join(dirname(fileURLToPath(import.meta.url)), '../../test-results/telas');

export function estado(): Estado {
  const e = process.env.GIRO_E2E;
  if (!e) throw new Error('GIRO_E2E ausente: os testes rodam pelo global setup (npm run e2e)');
  return JSON.parse(e) as Estado;
}

export const principal = (): Mercado => estado().mercados.principal;
export const curto = (): Mercado => estado().mercados.curto;
export const eventos = (): Mercado => estado().mercados.eventos;

/** A full-page screenshot in web/test-results/telas/<nome>.png. */
export async function foto(page: Page, nome: string): Promise<void> {
  mkdirSync(TELAS, { recursive: true });
  await page.screenshot({ path: join(TELAS, `${nome}.png`), fullPage: true });
}

/** No horizontal scrolling at the current width. */
export async function semRolagemHorizontal(page: Page): Promise<void> {
  const { largura, conteudo } = await page.evaluate(() => ({
    largura: document.documentElement.clientWidth,
    conteudo: document.documentElement.scrollWidth,
  }));
  expect(conteudo, 'página mais larga que a janela').toBeLessThanOrEqual(largura);
}

/** The services `pausado` holds stopped right now (one worker runs the tests, in order). */
const pausados = new Set<number>();

/**
 * Runs `f` with the service `pid` stopped (SIGSTOP: its sockets stay open, it answers nothing),
 * and resumes it (SIGCONT) whatever happens in `f`. Should `f` never settle (a request to the
 * stopped service that waits for ever, then the test's timeout), the fixture below resumes it when
 * the test ends, so no later test meets a stopped service.
 */
export async function pausado<T>(pid: number, f: () => Promise<T>): Promise<T> {
  process.kill(pid, 'SIGSTOP');
  pausados.add(pid);
  try {
    return await f();
  } finally {
    pausados.delete(pid);
    process.kill(pid, 'SIGCONT');
  }
}

/**
 * Signs the demo operator in on a login form (the painel's or mercado's operator pages) and waits
 * for `titulo`, a heading of the page behind it. With `url` it opens that page first; without, the
 * form is the one the page already shows (a test that first looked at the form itself). The tests
 * of the form (a wrong password, the keyboard) stay written out where they are.
 */
export async function entrar(page: Page, titulo: string, url?: string): Promise<void> {
  if (url !== undefined) await page.goto(url);
  const e = estado();
  await page.getByLabel('Usuário').fill(e.usuario);
  await page.getByLabel('Senha').fill(e.senha);
  await page.getByRole('button', { name: 'Entrar' }).click();
  // Exact: 'Operação do mercado' is also inside the login form's own 'Entrar na operação do mercado'.
  await expect(page.getByRole('heading', { name: titulo, exact: true })).toBeVisible();
}

export const test = base.extend<{ erros: string[]; retomar: void }>({
  erros: [
    async ({ page }, use) => {
      const erros: string[] = [];
      page.on('pageerror', (e) => erros.push(`exceção: ${e.message}`));
      // Nothing leaves the origin: fonts, scripts and styles all come from the build.
      page.on('request', (r) => {
        const u = new URL(r.url());
        if (
          /^(http|https|ws|wss):$/.test(u.protocol) &&
          !['127.0.0.1', 'localhost'].includes(u.hostname)
        )
          erros.push(`pedido a outro host: ${r.url()}`);
      });
      page.on('console', (m) => {
        // The browser logs every non-2xx fetch as "Failed to load resource"; the tests provoke
        // 401, 404, 409 and 422 answers on purpose. Anything else logged as an error fails.
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource'))
          erros.push(`console: ${m.text()}`);
      });
      await use(erros);
      expect(erros, 'erros no console da página').toEqual([]);
    },
    { auto: true },
  ],
  // The safety net behind `pausado`'s finally: whatever a test left stopped runs again.
  retomar: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's needs from this pattern; it needs none
    async ({}, use) => {
      await use();
      for (const pid of pausados) process.kill(pid, 'SIGCONT');
      pausados.clear();
    },
    { auto: true },
  ],
});

/** The operator on `m`'s estoque / mercado API. */
export async function operadorEstoque(m: Mercado = principal()): Promise<Operador> {
  const e = estado();
  return Operador.entrar(m.estoqueApi, 'XSRF-ESTOQUE', e.usuario, e.senha);
}

export async function operadorMercado(m: Mercado = principal()): Promise<Operador> {
  const e = estado();
  return Operador.entrar(m.mercadoApi, 'XSRF-MERCADO', e.usuario, e.senha);
}

export interface ProdutoApi {
  sku: string;
  nome: string;
  preco: number;
  status: 'DISPONIVEL' | 'ESGOTADO';
  disponivel: number;
  categoria: string | null;
  tags: string[];
}

export async function produtoNoMercado(sku: string, m: Mercado = principal()): Promise<ProdutoApi> {
  const r = await get(`${m.mercadoApi}/produtos/${sku}`);
  expect(r.status).toBe(200);
  return r.corpo as ProdutoApi;
}

/** Another shopper buys (and pays) `qtd` units through the API. */
export async function outroClienteCompra(
  sku: string,
  qtd: number,
  m: Mercado = principal(),
): Promise<void> {
  const r = await postJson(`${m.mercadoApi}/pedidos`, { itens: [{ sku, qtd }] });
  expect(r.status, JSON.stringify(r.corpo)).toBe(201);
  const pago = await postJson(
    `${m.mercadoApi}/pedidos/${(r.corpo as { pedidoId: string }).pedidoId}/pagamento`,
    {},
  );
  expect(pago.status).toBe(200);
}

/**
 * A product of its own for a test: a new SKU entered in the warehouse with one lot of `lote`
 * units, then registered in the storefront with min `minimo` and ideal `lote`, so its first
 * restock empties the lot; resolves once the shelf holds the whole lot.
 */
export async function produtoProprio(
  sku: string,
  nome: string,
  preco: number,
  lote: number,
  minimo = 1,
  m: Mercado = principal(),
): Promise<void> {
  const estoque = await operadorEstoque(m);
  const l = await estoque.post('/lotes', {
    sku,
    descricao: nome.toUpperCase(),
    ncm: '19053100',
    codigoLote: `L-${sku.slice(-4)}`,
    quantidade: lote,
  });
  expect(l.status, JSON.stringify(l.corpo)).toBe(201);
  const mercado = await operadorMercado(m);
  const p = await mercado.post('/produtos', {
    sku,
    nome,
    preco,
    estoqueMinimo: minimo,
    estoqueIdeal: lote,
  });
  expect(p.status, JSON.stringify(p.corpo)).toBe(201);
  await expect
    .poll(async () => (await produtoNoMercado(sku, m)).disponivel, { timeout: 15_000 })
    .toBe(lote);
}

/** How mercado's operator list (`GET /operacao/produtos`) shows a product's open restock. */
interface ReposicaoNoMercado {
  sku: string;
  reposicaoAberta: { status: string } | null;
}

/**
 * A product of its own on `m` whose first restock waits in the warehouse: its only lot
 * (`vencido.quantidade` units, code `vencido.codigoLote`) expired yesterday, so estoque denies
 * mercado's request and keeps it as pent-up demand. Registered in the storefront with min 2 and
 * ideal 6; resolves once mercado's operator list shows the restock AGUARDANDO_LOTE.
 */
export async function produtoAguardandoLote(
  m: Mercado,
  p: {
    sku: string;
    descricao: string;
    ncm: string;
    nome: string;
    preco: number;
    vencido: { codigoLote: string; quantidade: number };
  },
): Promise<void> {
  const estoque = await operadorEstoque(m);
  const mercado = await operadorMercado(m);
  const vencido = await estoque.post('/lotes', {
    sku: p.sku,
    descricao: p.descricao,
    ncm: p.ncm,
    ...p.vencido,
    validade: diaSaoPaulo(-1),
    confirmarVencido: true,
  });
  expect(vencido.status, JSON.stringify(vencido.corpo)).toBe(201);
  const produto = await mercado.post('/produtos', {
    sku: p.sku,
    nome: p.nome,
    preco: p.preco,
    estoqueMinimo: 2,
    estoqueIdeal: 6,
  });
  expect(produto.status, JSON.stringify(produto.corpo)).toBe(201);
  await expect
    .poll(
      async () => {
        const lista = (await mercado.get('/operacao/produtos')).corpo as ReposicaoNoMercado[];
        return lista.find((x) => x.sku === p.sku)?.reposicaoAberta?.status;
      },
      { timeout: 20_000 },
    )
    .toBe('AGUARDANDO_LOTE');
}

/** A lot of 10 units valid for 90 days on `m`: enough to serve the waiting restock of `sku`. */
export async function loteQueAtende(m: Mercado, sku: string, codigoLote: string): Promise<void> {
  const estoque = await operadorEstoque(m);
  const lote = await estoque.post('/lotes', {
    sku,
    codigoLote,
    quantidade: 10,
    validade: diaSaoPaulo(90),
  });
  expect(lote.status, JSON.stringify(lote.corpo)).toBe(201);
}

/**
 * The painel's event console (`secao`) with event `id`'s replay asked for on its row `linha`:
 * confirms it in the confirmation's row, waits for the console to say it was delivered, filters SENT and resolves with the row once the event is there
 * (delivered).
 */
export async function confirmarReenvio(
  secao: Locator,
  linha: Locator,
  id: string,
): Promise<Locator> {
  await expect(linha).toBeVisible();
  await secao
    .locator(`tr[data-confirmacao-de="${id}"]`)
    .getByRole('button', { name: 'Confirmar reenvio' })
    .click();
  // The console follows the replay to its outcome (issue 39): delivered.
  const aviso = secao.getByTestId('eventos-aviso');
  await expect(aviso).toHaveAttribute('data-desfecho', 'entregue', { timeout: 20_000 });
  await expect(aviso).toContainText('Evento entregue: o');
  await secao.getByLabel('Status', { exact: true }).selectOption('SENT');
  const entregue = secao.locator(`tr[data-event-id="${id}"][data-status="SENT"]`);
  await expect(entregue).toBeVisible({ timeout: 20_000 });
  return entregue;
}
