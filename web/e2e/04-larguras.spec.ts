// Every page usable at 375 px and at 1280 px: nothing wider than the window, the main controls
// visible, a screenshot of each.
import { test, expect, foto, principal, entrar, semRolagemHorizontal } from './support/teste';
import { COCA, PAO } from './support/demo';

for (const largura of [375, 1280]) {
  test.describe(`${largura} px`, () => {
    test.use({ viewport: { width: largura, height: largura === 375 ? 812 : 800 } });

    test('vitrine, produto, carrinho, pedido', async ({ page }) => {
      const m = principal();
      await page.goto(m.vitrine);
      await expect(page.getByRole('searchbox', { name: 'Buscar produtos' })).toBeVisible();
      await expect(page.getByRole('link', { name: /^Carrinho, \d+ ite/ })).toBeVisible();
      await expect(
        page.getByRole('button', { name: 'Adicionar Coca-Cola 2L PET ao carrinho' }),
      ).toBeVisible();
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-vitrine`);

      await page.goto(`${m.vitrine}/produtos/${COCA}`);
      await expect(page.getByRole('button', { name: 'Adicionar ao carrinho' })).toBeVisible();
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-produto`);
      await page.getByRole('button', { name: 'Adicionar ao carrinho' }).click();
      await page.goto(`${m.vitrine}/produtos/${PAO}`);
      await semRolagemHorizontal(page);

      await page.goto(`${m.vitrine}/carrinho`);
      await expect(page.getByRole('button', { name: 'Finalizar compra' })).toBeVisible();
      await expect(
        page.getByRole('button', { name: 'Remover Coca-Cola 2L PET do carrinho' }),
      ).toBeVisible();
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-carrinho`);
      await page.getByRole('button', { name: 'Finalizar compra' }).click();
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Pedido reservado');
      await expect(page.getByRole('button', { name: 'Pagar R$ 8,99' })).toBeVisible();
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-pedido`);
      await page.getByRole('button', { name: 'Pagar R$ 8,99' }).click();
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Pedido pago');
    });

    test('painel: login e painel', async ({ page }) => {
      await page.goto(principal().painel);
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-painel-login`);
      await entrar(page, 'Painel do estoque');
      await expect(page.getByRole('button', { name: 'Sair' })).toBeVisible();
      await expect(page.getByRole('button', { name: 'Dar entrada no estoque' })).toBeVisible();
      await expect(page.locator('#reposicoes table')).toBeVisible();
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-painel`);
    });

    test('operação do mercado: login, produtos e eventos', async ({ page }) => {
      await page.goto(`${principal().vitrine}/operador/`);
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-operador-login`);
      await entrar(page, 'Operação do mercado');
      await expect(page.getByRole('button', { name: 'Cadastrar produto' })).toBeVisible();
      await expect(page.locator(`#produtos tr[data-sku="${COCA}"]`)).toBeVisible();
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-operador-produtos`);
      await page.getByRole('link', { name: 'Eventos' }).click();
      await expect(page.getByTestId('eventos-enviados')).toBeVisible();
      await page.getByLabel('Status', { exact: true }).selectOption('SENT');
      await expect(page.locator('#eventos tr[data-status="SENT"]').first()).toBeVisible();
      // A delivered event has no action: no empty "Ações" line on its card (issue 39).
      const acoes = page.locator('#eventos tr[data-status="SENT"] td.evento-acoes').first();
      await expect(acoes).toBeEmpty();
      if (largura === 375) await expect(acoes).toBeHidden();
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-operador-eventos`);
    });
  });
}
