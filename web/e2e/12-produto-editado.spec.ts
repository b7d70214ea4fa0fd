// Issue 39 §4, at 1280 and at 375 px: the owner renames, categorises and describes a product and
// gives it an image in *Editar*; the storefront then shows the new name, the description and the
// image (whole, in the monogram's fixed box) on the product's page and its card, and no longer
// the classifier's raw tags.
import {
  test,
  expect,
  foto,
  entrar,
  principal,
  produtoNoMercado,
  produtoProprio,
  semRolagemHorizontal,
} from './support/teste';

for (const largura of [1280, 375]) {
  test.describe(`${largura} px`, () => {
    test.use({ viewport: { width: largura, height: largura === 375 ? 812 : 800 } });

    test('editar: nome, categoria, descrição e imagem aparecem na vitrine', async ({ page }) => {
      const sku = largura === 375 ? '7890000003918' : '7890000003901';
      const nome = `Biscoito Recheado Chocolate 140g ${largura}`;
      await produtoProprio(sku, `Bicoito Rechado ${largura}`, 4.5, 5);
      const m = principal();

      // A real PNG, drawn by the browser: a 400×300 packshot stand-in.
      await page.goto(`${m.vitrine}/operador/`);
      const png = await page.evaluate(() => {
        const c = document.createElement('canvas');
        [c.width, c.height] = [400, 300];
        const g = c.getContext('2d')!;
        g.fillStyle = '#7a3b12';
        g.fillRect(0, 0, 400, 300);
        g.fillStyle = '#f4d7a1';
        g.fillRect(60, 90, 280, 120);
        return c.toDataURL('image/png').split(',')[1]!;
      });

      await entrar(page, 'Operação do mercado');
      await page.goto(`${m.vitrine}/operador/produtos/${sku}`);
      await page.getByLabel('Nome').fill(nome);
      await page.getByLabel('Categoria').selectOption('mercearia');
      const descricao = 'Biscoito recheado sabor chocolate.\nPacote com 140 g.';
      await page.getByLabel('Descrição').fill(descricao);
      await page.getByRole('button', { name: 'Salvar alterações' }).click();
      await expect(page.getByTestId('edicao-ok')).toHaveText('Alterações salvas.');
      await page.getByLabel('Enviar imagem').setInputFiles({
        name: 'biscoito.png',
        mimeType: 'image/png',
        buffer: Buffer.from(png, 'base64'),
      });
      await expect(page.getByTestId('imagem-ok')).toHaveText(
        'Imagem salva: a vitrine já mostra a nova imagem.',
      );
      const previa = page.getByRole('img', { name: `Imagem de ${nome}` });
      await expect(previa).toBeVisible();
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-operador-editar-produto`);

      const api = await produtoNoMercado(sku);
      expect([api.nome, api.categoria]).toEqual([nome, 'mercearia']);

      // The product's page: the new name, the description, the image whole in its box, no tags.
      await page.goto(`${m.vitrine}/produtos/${sku}`);
      await expect(page.getByRole('heading', { level: 1, name: nome })).toBeVisible();
      await expect(page.getByTestId('descricao')).toHaveText(descricao);
      const img = page.locator('.monograma-grande img');
      await expect(img).toBeVisible();
      await expect(img).toHaveCSS('object-fit', 'contain');
      expect(await img.evaluate((e: HTMLImageElement) => e.complete && e.naturalWidth)).toBe(400);
      const caixa = (await page.locator('.monograma-grande').boundingBox())!;
      const foto4por3 = (await img.boundingBox())!;
      expect(foto4por3.width).toBeLessThanOrEqual(caixa.width + 0.5);
      expect(foto4por3.height).toBeLessThanOrEqual(caixa.height + 0.5);
      await expect(page.getByRole('list', { name: 'Tags' })).toHaveCount(0);
      await expect(page.getByRole('link', { name: 'Mercearia' })).toBeVisible();
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-vitrine-produto-com-imagem`);

      // Its card, found by the new name: the image instead of the initials.
      await page.goto(`${m.vitrine}/?busca=${encodeURIComponent(nome)}`);
      const cartao = page.locator(`article[data-sku="${sku}"]`);
      await expect(cartao.locator('.monograma-foto img')).toBeVisible();
      await expect(cartao.getByRole('heading', { name: nome })).toBeVisible();
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-vitrine-cartao-com-imagem`);
    });
  });
}
