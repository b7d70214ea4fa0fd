// The charts and the event console's new reads (issue 26) against the real services, at 1280
// and at 375 px: each chart is drawn (a canvas of the page's width) and carries the API's numbers
// in its text alternative; the console finds a SKU's events and, at 375 px, each is a card whose
// status stays on screen. Screenshots in web/test-results/telas/<largura>-graficos-*.png.
import type { Page } from '@playwright/test';
import {
  test,
  expect,
  foto,
  principal,
  entrar,
  operadorEstoque,
  operadorMercado,
  outroClienteCompra,
  semRolagemHorizontal,
} from './support/teste';
import { COCA } from './support/demo';

test.describe.configure({ mode: 'serial' });

interface Latencia {
  horas: number;
  pontos: { reposicoes: number }[];
}

/** The rows of a chart's text alternative: the table screen readers find by the chart's name
 * (uPlot's legend is another table, without a name). */
function numeros(fig: ReturnType<Page['getByRole']>, nome: string) {
  return fig.getByRole('table', { name: nome }).locator('tbody tr');
}

/** The figure named `nome`, scrolled to, drawn: a canvas at least `min` px wide. */
async function desenhado(page: Page, nome: string, largura: number) {
  const fig = page.getByRole('figure', { name: nome });
  await fig.scrollIntoViewIfNeeded();
  await expect(fig).toBeVisible();
  const canvas = fig.locator('canvas').first();
  await expect(canvas).toBeVisible();
  const caixa = await canvas.boundingBox();
  expect(caixa!.width, `${nome}: largura do gráfico`).toBeGreaterThan(Math.min(240, largura - 100));
  expect(caixa!.width, `${nome}: cabe na janela`).toBeLessThanOrEqual(largura);
  return fig;
}

for (const largura of [1280, 375]) {
  test.describe(`${largura} px`, () => {
    test.use({ viewport: { width: largura, height: largura === 375 ? 812 : 800 } });

    test('painel: latência das reposições, demanda por idade e eventos por minuto, com os números da API', async ({
      page,
    }) => {
      await entrar(page, 'Painel do estoque', principal().painel);
      const lat = await desenhado(page, 'Latência das reposições', largura);
      // The demo restocked every shelf: the last day has restocks, and the page says how many
      // the API counts (24 intervals in the table for screen readers).
      const api = async () =>
        (
          (await (await operadorEstoque()).get('/painel/graficos/latencia-reposicao?horas=24'))
            .corpo as Latencia
        ).pontos.reduce((n, p) => n + p.reposicoes, 0);
      // Restocks may still land meanwhile: the page's count lies between the API's before and after.
      const antes = await api();
      expect(antes).toBeGreaterThan(0);
      const texto = lat.getByText(/reposições nas últimas 24 h\./);
      await expect(texto).toBeVisible();
      const naPagina = Number(
        /([\d.]+) reposições/.exec((await texto.textContent()) ?? '')![1]!.replace(/\./g, ''),
      );
      expect(naPagina).toBeGreaterThanOrEqual(antes);
      expect(naPagina).toBeLessThanOrEqual(await api());
      await expect(numeros(lat, 'Latência das reposições')).toHaveCount(24);
      const janela = page.getByRole('group', { name: 'Janela da latência' });
      await janela.getByRole('button', { name: '1 h' }).click();
      await expect(janela.getByRole('button', { name: '1 h' })).toHaveAttribute(
        'aria-pressed',
        'true',
      );
      await expect(page.getByRole('figure', { name: 'Latência das reposições' })).toContainText(
        /nas últimas 1 h\./,
      );

      const demanda = await desenhado(page, 'Demanda reprimida por idade', largura);
      await expect(numeros(demanda, 'Demanda reprimida por idade')).toHaveCount(6);
      await expect(
        numeros(demanda, 'Demanda reprimida por idade').first().locator('th'),
      ).toHaveText('até 5 min');

      const eventos = await desenhado(page, 'Eventos por minuto', largura);
      await expect(numeros(eventos, 'Eventos por minuto')).toHaveCount(60);
      await semRolagemHorizontal(page);
      await page.getByRole('heading', { name: 'Gráficos' }).scrollIntoViewIfNeeded();
      await foto(page, `${largura}-graficos-painel`);
    });

    test('operação do mercado: pedidos e receita por hora, os que mais esgotam, prateleira contra mínimo e ideal', async ({
      page,
    }) => {
      await outroClienteCompra(COCA, 1);
      const op = await operadorMercado();
      const vendas = (await op.get('/operacao/graficos/vendas?horas=24')).corpo as {
        pontos: { pedidos: number; pagos: number }[];
      };
      const ultima = vendas.pontos[vendas.pontos.length - 1]!;
      expect(ultima.pagos).toBeGreaterThan(0);

      await entrar(page, 'Operação do mercado', `${principal().vitrine}/operador/`);
      const pedidos = await desenhado(page, 'Pedidos por hora', largura);
      await expect(numeros(pedidos, 'Pedidos por hora')).toHaveCount(24);
      // The current hour, last: at least the order just paid.
      const linha = numeros(pedidos, 'Pedidos por hora').last();
      await expect
        .poll(async () => Number(await linha.locator('td').nth(1).textContent()))
        .toBeGreaterThanOrEqual(ultima.pagos);
      const receita = await desenhado(page, 'Receita por hora', largura);
      await expect(
        receita.getByText(/Total dos pedidos pagos nas últimas 24 h: R\$/),
      ).toBeVisible();
      await desenhado(page, 'Os que mais esgotam', largura);
      const prateleira = await desenhado(page, 'Prateleira, mínimo e ideal', largura);
      const lista = (await op.get('/operacao/graficos/prateleira')).corpo as { nome: string }[];
      await expect(numeros(prateleira, 'Prateleira, mínimo e ideal')).toHaveCount(lista.length);
      await expect(
        numeros(prateleira, 'Prateleira, mínimo e ideal').first().locator('th'),
      ).toHaveText(lista[0]!.nome);
      await semRolagemHorizontal(page);
      await page.getByRole('heading', { name: 'Gráficos' }).scrollIntoViewIfNeeded();
      await foto(page, `${largura}-graficos-operacao`);
    });

    test('console: busca por SKU mostra a coluna SKU e o tipo em palavras; a 375 px cada evento é um cartão', async ({
      page,
    }) => {
      await entrar(page, 'Painel do estoque', principal().painel);
      await page.locator('#eventos').scrollIntoViewIfNeeded();
      await page.getByLabel('Buscar por id, SKU ou produto').fill(COCA);
      await page.getByRole('button', { name: 'Buscar' }).click();
      const linha = page.locator('.tabela-eventos tbody tr').first();
      await expect(linha).toContainText(COCA);
      await expect(linha).toContainText('Remessa de reposição');
      const status = linha.locator('td[data-rotulo="Status"]');
      await status.scrollIntoViewIfNeeded();
      await expect(status).toBeInViewport();
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-graficos-console-busca`);
    });
  });
}
