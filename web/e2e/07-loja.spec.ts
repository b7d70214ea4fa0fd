// The shopper's search and the shop owner's orders and products (issue 26, points 1 and 3)
// against the real services, at 1280 and at 375 px: accents and case do not matter, a search
// that finds nothing offers the categories, the order page shows its short number and date, the
// owner finds that order in the list and opens it, and an unlisted product leaves the storefront.
import { postJson } from './support/cliente';
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

test.describe.configure({ mode: 'serial' });

for (const [largura, sku] of [
  [1280, '7890000000262'],
  [375, '7890000000279'],
] as const) {
  test.describe(`${largura} px`, () => {
    test.use({ viewport: { width: largura, height: largura === 375 ? 812 : 800 } });

    test('busca: sem acento nem caixa, todas as palavras; vazia oferece as categorias', async ({
      page,
    }) => {
      const busca = page.getByRole('searchbox').first();
      for (const q of ['cafe', 'CAFÉ', 'café moído']) {
        await page.goto(`${principal().vitrine}/?busca=${encodeURIComponent(q)}`);
        await expect(page.getByRole('heading', { name: `Resultados para “${q}”` })).toBeVisible();
        await expect(
          page.getByRole('article').filter({ hasText: 'Café Torrado e Moído 500g' }),
        ).toHaveCount(1);
      }
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-loja-busca-cafe`);

      await page.goto(`${principal().vitrine}/`);
      await busca.fill('xyz nada');
      await busca.press('Enter');
      await expect(page.getByText('Nenhum produto para “xyz nada”')).toBeVisible();
      const caminhos = page.getByRole('list', { name: 'Categorias para continuar' });
      await expect(caminhos.getByRole('link').first()).toBeVisible();
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-loja-busca-vazia`);
      await caminhos.getByRole('link').first().click();
      await expect(page).toHaveURL(/\?categoria=/);
    });

    test('pedido: número e data para o cliente; o dono o acha na lista e abre', async ({
      page,
    }) => {
      await produtoProprio(sku, `Granola da Casa ${largura}`, 12.5, 10);
      const r = await postJson(`${principal().mercadoApi}/pedidos`, {
        itens: [{ sku, qtd: 2 }],
      });
      expect(r.status, JSON.stringify(r.corpo)).toBe(201);
      const { pedidoId, numero } = r.corpo as { pedidoId: string; numero: number };
      expect(numero).toBeGreaterThanOrEqual(1001);

      await page.goto(`${principal().vitrine}/pedidos/${pedidoId}`);
      await expect(page.getByTestId('pedido-numero')).toHaveText(
        new RegExp(`^Pedido nº ${numero} · feito em \\d\\d/\\d\\d/\\d{4} às \\d\\d:\\d\\d$`),
      );
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-loja-pedido-cliente`);

      await entrar(page, 'Operação do mercado', `${principal().vitrine}/operador/pedidos`);
      const linha = page.locator(`#pedidos tr[data-numero="${numero}"]`);
      await expect(linha).toContainText('Aguardando pagamento');
      await expect(linha).toContainText('2 unidades');
      await expect(linha).toContainText(/R\$\s25,00/);
      // Every column on screen at both widths (a list of cards at 375 px).
      await expect(linha.getByText(/R\$\s25,00/)).toBeInViewport();
      await expect(linha.getByText('Aguardando pagamento')).toBeInViewport();
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-loja-pedidos`);

      await page.getByLabel('Status').selectOption('PAGO');
      await expect(page.locator(`#pedidos tr[data-numero="${numero}"]`)).toHaveCount(0);
      await page.getByLabel('Status').selectOption('AGUARDANDO_PAGAMENTO');
      await linha.getByRole('link', { name: `nº ${numero}` }).click();
      await expect(page.getByRole('heading', { name: `Pedido nº ${numero}` })).toBeVisible();
      await expect(page.getByText('Não pago')).toBeVisible();
      await expect(page.getByRole('list', { name: 'Reservas' })).toContainText('2 un. · Ativa');
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-loja-pedido-detalhe`);
    });

    test('produto: o dono muda o preço e tira da vitrine; a busca deixa de achá-lo', async ({
      page,
    }) => {
      const nome = `Granola da Casa ${largura}`;
      await entrar(page, 'Operação do mercado', `${principal().vitrine}/operador/`);
      await page.getByRole('link', { name: `Editar ${nome}` }).click();
      await expect(page.getByRole('heading', { name: `Editar ${nome}` })).toBeVisible();
      await page.getByLabel('Preço (R$)').fill('13,90');
      await page.getByRole('button', { name: 'Salvar alterações' }).click();
      await expect(page.getByTestId('edicao-ok')).toHaveText('Alterações salvas.');
      expect((await produtoNoMercado(sku)).preco).toBe(13.9);
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-loja-produto-editado`);

      page.once('dialog', (d) => void d.accept());
      await page.getByLabel('À venda na vitrine').uncheck();
      await page.getByRole('button', { name: 'Salvar alterações' }).click();
      await expect(page.getByTestId('edicao-ok')).toHaveText(
        'Alterações salvas. O produto saiu da vitrine.',
      );

      await page.goto(`${principal().vitrine}/?busca=${encodeURIComponent('granola casa')}`);
      await expect(page.getByText('Nenhum produto para “granola casa”')).toBeVisible();
      await page.goto(`${principal().vitrine}/produtos/${sku}`);
      await expect(page.getByTestId('fora-do-catalogo')).toBeVisible();
      await foto(page, `${largura}-loja-produto-fora`);
    });
  });
}
