// Issue 39 §5 and §8, at 1280 and at 375 px: mercado's product table follows the operator tables'
// one rule (a table that fits at 1280 px — every "Editar" inside it, no name on three lines — and
// a card a product at 375 px, nothing scrolled sideways), and the lot form takes an NCM as written
// on invoices (`1905.31.00`: nothing cut, the dots dropped) and says what is missing in pt-BR,
// beside each field, instead of the browser's bubbles. §12: the painel's login and a new SKU's
// lookup answer no 401/404 the browser would log; at 375 px the dashboard opens with the events
// and the waiting demand, the lot form after them; a quantity typed above what is available is
// lowered and the page says why.
import {
  test,
  expect,
  foto,
  entrar,
  principal,
  produtoNoMercado,
  semRolagemHorizontal,
} from './support/teste';
import { COCA, diaSaoPaulo } from './support/demo';

for (const largura of [1280, 375]) {
  test.describe(`${largura} px`, () => {
    test.use({ viewport: { width: largura, height: largura === 375 ? 812 : 800 } });

    test('operação do mercado: a tabela de produtos cabe (tabela a 1280, cartões a 375)', async ({
      page,
    }) => {
      await entrar(page, 'Operação do mercado', `${principal().vitrine}/operador/`);
      const secao = page.locator('#produtos');
      const linhas = secao.locator('tbody tr');
      await expect(linhas.first()).toBeVisible();
      // The table's own scroll box never scrolls: nothing hides to the right.
      const rolagem = secao.locator('.tabela-rolagem');
      const { larga, caixa } = await rolagem.evaluate((e) => ({
        larga: e.scrollWidth,
        caixa: e.clientWidth,
      }));
      expect(larga, 'a tabela é mais larga que o cartão').toBeLessThanOrEqual(caixa);
      const box = (await rolagem.boundingBox())!;
      for (let i = 0; i < (await linhas.count()); i++) {
        const editar = linhas.nth(i).getByRole('link', { name: /^Editar / });
        const b = (await editar.boundingBox())!;
        expect(b.x + b.width).toBeLessThanOrEqual(box.x + box.width + 0.5);
        const nome = linhas.nth(i).locator('.produto-nome');
        const alturaLinha = await nome.evaluate((e) => parseFloat(getComputedStyle(e).lineHeight));
        expect((await nome.boundingBox())!.height).toBeLessThan(alturaLinha * 2.5);
      }
      if (largura === 375) {
        await expect(secao.locator('thead')).toHaveCSS('position', 'absolute');
        await expect(linhas.first()).toHaveCSS('display', 'block');
      } else {
        await expect(linhas.first()).toHaveCSS('display', 'table-row');
      }
      await semRolagemHorizontal(page);
      await secao.scrollIntoViewIfNeeded();
      await foto(page, `${largura}-operador-tabela-produtos`);
    });

    test('painel: login e SKU novo sem 401/404 no console; a ordem do painel', async ({ page }) => {
      const erros: string[] = [];
      page.on('response', (r) => {
        if ([401, 404].includes(r.status())) erros.push(`${r.status()} ${r.url()}`);
      });
      await entrar(page, 'Painel do estoque', principal().painel);
      const form = page.locator('#entrada-lote');
      await form.getByLabel('SKU/EAN').fill(largura === 375 ? '7890000000200' : '7890000000217');
      await expect(form.getByText('SKU novo: informe descrição e NCM.')).toBeVisible();
      expect(erros, 'respostas que o navegador registra como erro').toEqual([]);

      const y = async (sel: string) => (await page.locator(sel).boundingBox())!.y;
      if (largura === 375) {
        expect(await y('#eventos')).toBeLessThan(await y('#entrada-lote'));
        expect(await y('#demanda-reprimida')).toBeLessThan(await y('#entrada-lote'));
      } else {
        expect(await y('#entrada-lote')).toBeLessThan(await y('#eventos'));
      }
      await semRolagemHorizontal(page);
      await page.evaluate(() => window.scrollTo(0, 0));
      await foto(page, `${largura}-painel-ordem`);
    });

    test('vitrine: quantidade acima do disponível diz por quê; palavras da categoria acham os produtos', async ({
      page,
    }) => {
      const m = principal();
      const disponivel = (await produtoNoMercado(COCA, m)).disponivel;
      await page.goto(`${m.vitrine}/produtos/${COCA}`);
      const campo = page.getByRole('spinbutton', { name: 'Quantidade' });
      await campo.fill(String(disponivel + 6));
      await expect(campo).toHaveValue(String(disponivel));
      await expect(page.locator('#qtd-produto-limite')).toHaveText(
        `Só há ${disponivel} unidades disponíveis: a quantidade ficou em ${disponivel}, não ${disponivel + 6}.`,
      );
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-vitrine-quantidade-limite`);

      // The category's words find its products ("Bebidas": neither word is in Coca's name).
      for (const busca of ['bebida', 'refrigerante']) {
        await page.goto(`${m.vitrine}/?busca=${busca}`);
        await expect(
          page.getByRole('button', { name: 'Adicionar Coca-Cola 2L PET ao carrinho' }),
        ).toBeVisible();
      }
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-vitrine-busca-categoria`);
    });

    test('entrada de lote: NCM como na nota fiscal e mensagens em português', async ({ page }) => {
      await entrar(page, 'Painel do estoque', principal().painel);
      const form = page.locator('#entrada-lote');
      const enviar = form.getByRole('button', { name: 'Dar entrada no estoque' });

      // Nothing filled: the form says what is missing, beside each field; no browser bubble.
      await enviar.click();
      await expect(form.getByText('Informe o SKU/EAN do produto.')).toBeVisible();
      await expect(
        form.getByText('Informe a quantidade: um número inteiro a partir de 1.'),
      ).toBeVisible();
      await expect(form.getByText('Informe o código do lote, como na embalagem.')).toBeVisible();
      expect(
        await form
          .locator('input')
          .evaluateAll((es) => es.every((e) => (e as HTMLInputElement).validity.valid)),
      ).toBe(true);
      await expect(form.getByLabel('SKU/EAN')).toBeFocused();
      await semRolagemHorizontal(page);
      await form.scrollIntoViewIfNeeded();
      await foto(page, `${largura}-painel-lote-mensagens`);

      const sku = largura === 375 ? '7890000000194' : '7890000000187';
      await form.getByLabel('SKU/EAN').fill(sku);
      await expect(form.getByText('SKU novo: informe descrição e NCM.')).toBeVisible();
      await form.getByLabel('Descrição').fill(`BISCOITO DE POLVILHO ${largura}`);
      await form.getByLabel('NCM').fill('1905.31');
      await form.getByLabel('Quantidade').fill('12');
      await form.getByLabel('Código do lote').fill(`L-POL-${largura}`);
      await form.getByLabel('Validade').fill(diaSaoPaulo(60));
      await enviar.click();
      await expect(
        form.getByText('NCM tem 8 dígitos, como na nota fiscal (ex.: 1905.31.00).'),
      ).toBeVisible();
      await expect(form.getByLabel('NCM')).toHaveAttribute('aria-invalid', 'true');

      // As written on the invoice: kept whole in the field, accepted with its dots.
      await form.getByLabel('NCM').fill('1905.31.00');
      await expect(form.getByLabel('NCM')).toHaveValue('1905.31.00');
      await foto(page, `${largura}-painel-lote-ncm`);
      await enviar.click();
      await expect(page.getByTestId('resultado-lote')).toContainText(
        `Lote L-POL-${largura} registrado.`,
      );
      await semRolagemHorizontal(page);
    });
  });
}
