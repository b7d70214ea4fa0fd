// The inventory (issue 26) against the real estoque, at 1280 and at 375 px: a KPI opens it
// filtered, a SKU's page shows its lots in FEFO order, an expired lot is written off behind a
// confirmation (its quantity and reason, issue 39) and the write-off shows in the SKU's history;
// the dark sidebar is not cyan.
import type { Page } from '@playwright/test';
import {
  test,
  expect,
  foto,
  principal,
  entrar,
  estado,
  operadorEstoque,
  semRolagemHorizontal,
} from './support/teste';
import { PAO, SABAO } from './support/demo';

test.describe.configure({ mode: 'serial' });

interface Detalhe {
  saldoVencido: number;
  lotes: { codigoLote: string; vencido: boolean; quantidadeDisponivel: number }[];
  movimentos: { tipo: string; codigoLote: string; qtd: number; operador?: string }[];
}

async function detalhe(sku: string): Promise<Detalhe> {
  return (await (await operadorEstoque()).get(`/painel/estoque/${sku}`)).corpo as Detalhe;
}

/** Writes off `lote` of `sku` from its page, as the operator would, and checks what it left. */
async function darBaixa(page: Page, sku: string, lote: string, largura: number) {
  const antes = await detalhe(sku);
  const unidades = antes.lotes.find((l) => l.codigoLote === lote)!.quantidadeDisponivel;
  const linha = page.locator(`tr[data-lote="${lote}"]`);
  await expect(linha.getByText('Vencido', { exact: true })).toBeVisible();
  const botao = linha.getByRole('button', { name: 'Dar baixa' });
  await botao.scrollIntoViewIfNeeded();
  await expect(botao).toBeInViewport();
  await botao.click();
  // Issue 39: the whole lot and Vencido are what the form offers for an expired lot.
  const form = page.getByRole('form', { name: `Dar baixa no lote ${lote}` });
  await expect(form).toContainText(
    `Dar baixa em ${unidades} unidades do lote ${lote} (vencido)? Elas saem do estoque de vez.`,
  );
  await foto(page, `${largura}-estoque-baixa-confirmacao`);
  await form.getByRole('button', { name: 'Confirmar baixa' }).click();
  await expect(
    page.getByText(
      `Baixa registrada: ${unidades} unidades do lote ${lote} saíram do estoque (vencido). O lote ficou sem unidades.`,
    ),
  ).toBeVisible();
  await expect(page.locator(`tr[data-lote="${lote}"]`)).toHaveCount(0);
  const baixa = page.locator('tr[data-movimento="baixa"]').first();
  await expect(baixa).toContainText('Baixa · Vencido');
  await expect(baixa).toContainText(lote);
  await expect(baixa).toContainText(estado().usuario);
  await expect(page.getByTestId('sku-saldo-vencido')).toHaveText(
    String(antes.saldoVencido - unidades),
  );
  await semRolagemHorizontal(page);
  await foto(page, `${largura}-estoque-baixa-feita`);

  // The API agrees: the lot is gone from the list, the movement row names who.
  const depois = await detalhe(sku);
  expect(depois.lotes.some((l) => l.codigoLote === lote)).toBe(false);
  expect(depois.movimentos[0]).toMatchObject({
    tipo: 'baixa',
    codigoLote: lote,
    qtd: unidades,
    operador: estado().usuario,
  });
}

test.describe('1280 px', () => {
  test('estoque: o KPI abre a lista filtrada, a página do SKU e a baixa de um lote vencido', async ({
    page,
  }) => {
    await entrar(page, 'Painel do estoque', principal().painel);
    const resumo = (await (await operadorEstoque()).get('/painel/resumo')).corpo as {
      skusSemSaldo: number;
    };
    await page.getByTestId('kpi-skusSemSaldo').click();
    await expect(page).toHaveURL(/#\/estoque\?estado=sem-saldo-valido$/);
    const secao = page.locator('#estoque');
    await expect(secao.getByRole('heading', { name: 'Estoque' })).toBeVisible();
    await expect(secao.getByLabel('Situação')).toHaveValue('sem-saldo-valido');
    const n = resumo.skusSemSaldo;
    await expect(page.getByTestId('estoque-total')).toHaveText(n === 1 ? '1 SKU' : `${n} SKUs`);
    const sabao = secao.locator(`tr[data-sku="${SABAO}"]`);
    await expect(sabao.getByRole('cell')).toHaveText([
      SABAO,
      'SABAO EM PO 1KG',
      'Só vencido',
      '0',
      '60',
      /^\d+$/,
      '—',
    ]);
    await foto(page, 'estoque-sem-saldo-valido');

    // Text search and state together; then every state.
    await secao.getByLabel('Buscar').fill('sabao');
    await secao.getByRole('button', { name: 'Buscar' }).click();
    await expect(page).toHaveURL(/#\/estoque\?busca=sabao&estado=sem-saldo-valido$/);
    await expect(secao.locator('tbody tr')).toHaveCount(1);
    await secao.getByLabel('Situação').selectOption('com-saldo');
    await expect(secao.getByText('Nenhum SKU encontrado para “sabao”.')).toBeVisible();

    await page.goto(`${principal().painel}#/estoque?estado=so-vencido`);
    await secao.locator(`tr[data-sku="${SABAO}"]`).getByRole('link', { name: SABAO }).click();
    await expect(page).toHaveURL(new RegExp(`#/estoque/${SABAO}$`));
    await expect(page.getByRole('heading', { name: 'SABAO EM PO 1KG' })).toBeVisible();
    await expect(page.getByTestId('sku-saldo-valido')).toHaveText('0');
    await foto(page, 'estoque-sku');
    await darBaixa(page, SABAO, 'L-SABA-01', 1280);

    await page.getByRole('link', { name: '← Estoque' }).click();
    await expect(page).toHaveURL(/#\/estoque$/);
    await expect(
      page.locator(`#estoque tr[data-sku="${SABAO}"]`).getByText('Zerado'),
    ).toBeVisible();
  });

  test('modo escuro: a lateral usa o petróleo escuro, não um ciano ofuscante', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await entrar(page, 'Painel do estoque', principal().painel);
    const lateral = page.getByRole('complementary', { name: 'Navegação do painel' });
    // brand-2-tint (dark) #123b40, never brand-2-strong (dark) #4ecdd8.
    await expect(lateral).toHaveCSS('background-color', 'rgb(18, 59, 64)');
    await foto(page, 'painel-escuro');
  });
});

test.describe('375 px', () => {
  test.use({ viewport: { width: 375, height: 812 } });

  test('estoque em cartões: lista, SKU e baixa alcançáveis sem rolagem lateral', async ({
    page,
  }) => {
    await entrar(page, 'Painel do estoque', principal().painel);
    // The dashboard's tables are cards: every status stays on screen.
    const status = page.locator('#reposicoes td[data-rotulo="Status"]').first();
    await expect(status).toBeVisible();
    const caixa = (await status.boundingBox())!;
    expect(caixa.x + caixa.width).toBeLessThanOrEqual(375);
    const console = page.locator('#eventos tbody tr');
    if ((await console.count()) > 0) {
      const ultima = (await console.first().locator('td').last().boundingBox())!;
      expect(ultima.x + ultima.width).toBeLessThanOrEqual(375);
    }
    await semRolagemHorizontal(page);

    await page.getByRole('link', { name: 'Estoque', exact: true }).click();
    await expect(page).toHaveURL(/#\/estoque$/);
    const pao = page.locator(`#estoque tr[data-sku="${PAO}"]`);
    await expect(pao).toBeVisible();
    await pao.scrollIntoViewIfNeeded();
    for (const rotulo of ['Situação', 'Saldo válido', 'Vencido', 'Próxima validade']) {
      const celula = pao.locator(`td[data-rotulo="${rotulo}"]`);
      await expect(celula).toBeInViewport();
      const c = (await celula.boundingBox())!;
      expect(c.x + c.width, rotulo).toBeLessThanOrEqual(375);
    }
    await semRolagemHorizontal(page);
    await foto(page, '375-estoque');

    await pao.getByRole('link', { name: PAO }).click();
    await expect(page.getByRole('heading', { name: 'PAO DE FORMA INTEGRAL 400G' })).toBeVisible();
    await semRolagemHorizontal(page);
    await foto(page, '375-estoque-sku');
    await darBaixa(page, PAO, 'L-PAO-01', 375);
  });
});
