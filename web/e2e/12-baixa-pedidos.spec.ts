// Issue 39, points 9 and 10, against the real services at 1280 and at 375 px: a partial
// write-off of a valid lot for a reason, whose history says who and when (date and time) for each
// movement; an order found by its number, its line totals, cancelled by the owner with its units
// back on the shelf; a paid order no longer shows its reservation deadline.
import { postJson } from './support/cliente';
import {
  test,
  expect,
  foto,
  entrar,
  estado,
  operadorEstoque,
  principal,
  produtoNoMercado,
  produtoProprio,
  semRolagemHorizontal,
} from './support/teste';
import { diaSaoPaulo } from './support/demo';

test.describe.configure({ mode: 'serial' });

for (const [largura, sku] of [
  [1280, '7890000003902'],
  [375, '7890000003919'],
] as const) {
  test.describe(`${largura} px`, () => {
    test.use({ viewport: { width: largura, height: largura === 375 ? 812 : 800 } });

    test('baixa parcial com motivo; o histórico diz quem e quando', async ({ page }) => {
      await produtoProprio(sku, `Biscoito da Casa ${largura}`, 4.5, 6);
      const lote = `L-B${largura}`;
      const r = await (
        await operadorEstoque()
      ).post('/lotes', { sku, codigoLote: lote, quantidade: 10, validade: diaSaoPaulo(30) });
      expect(r.status, JSON.stringify(r.corpo)).toBe(201);

      await entrar(page, 'Painel do estoque', principal().painel);
      await page.goto(`${principal().painel}#/estoque/${sku}`);
      const linha = page.locator(`tr[data-lote="${lote}"]`);
      await expect(linha).toContainText('10 de 10');
      await linha.getByRole('button', { name: 'Dar baixa' }).click();
      const form = page.getByRole('form', { name: `Dar baixa no lote ${lote}` });
      await expect(form.getByLabel('Motivo')).toHaveValue('avaria');
      // Checked before it is sent, in pt-BR (no browser bubble).
      await form.getByLabel('Quantidade (de 10)').fill('11');
      await form.getByRole('button', { name: 'Confirmar baixa' }).click();
      await expect(form.getByRole('alert')).toHaveText('Informe um número inteiro de 1 a 10.');
      await form.getByLabel('Quantidade (de 10)').fill('3');
      await form.getByLabel('Motivo').selectOption('furto');
      await expect(form).toContainText(
        `Dar baixa em 3 unidades do lote ${lote} (furto)? Elas saem do estoque de vez.`,
      );
      await expect(form.getByRole('button', { name: 'Confirmar baixa' })).toBeInViewport();
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-estoque-baixa-parcial-formulario`);
      await form.getByRole('button', { name: 'Confirmar baixa' }).click();
      await expect(
        page.getByText(
          `Baixa registrada: 3 unidades do lote ${lote} saíram do estoque (furto). Restam 7 unidades no lote.`,
        ),
      ).toBeVisible();
      await expect(linha).toContainText('7 de 10');

      const quando = /^\d\d\/\d\d\/\d{4} às \d\d:\d\d$/;
      const baixa = page.locator('tr[data-movimento="baixa"]').first();
      await expect(baixa.locator('td[data-rotulo="Movimento"]')).toHaveText('Baixa · Furto');
      await expect(baixa.locator('td[data-rotulo="Por"]')).toHaveText(estado().usuario);
      await expect(baixa.locator('td[data-rotulo="Quando"]')).toHaveText(quando);
      for (const entrada of await page.locator('tr[data-movimento="entrada"]').all()) {
        await expect(entrada.locator('td[data-rotulo="Por"]')).toHaveText(estado().usuario);
        await expect(entrada.locator('td[data-rotulo="Quando"]')).toHaveText(quando);
      }
      const expedicao = page.locator('tr[data-movimento="expedicao"]').first();
      await expect(expedicao.locator('td[data-rotulo="Por"]')).toHaveText('Sistema (reposição)');
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-estoque-baixa-parcial-historico`);
    });

    test('pedidos: busca pelo número, total por linha, cancelamento devolve as unidades', async ({
      page,
    }) => {
      const comprar = async (qtd: number) => {
        const r = await postJson(`${principal().mercadoApi}/pedidos`, { itens: [{ sku, qtd }] });
        expect(r.status, JSON.stringify(r.corpo)).toBe(201);
        return r.corpo as { pedidoId: string; numero: number };
      };
      const antes = (await produtoNoMercado(sku)).disponivel;
      const aberto = await comprar(3);
      const pago = await comprar(1);
      const p = await postJson(`${principal().mercadoApi}/pedidos/${pago.pedidoId}/pagamento`, {});
      expect(p.status).toBe(200);

      await entrar(page, 'Operação do mercado', `${principal().vitrine}/operador/pedidos`);
      await page.getByLabel('Número do pedido').fill(`#${aberto.numero}`);
      await page.getByRole('button', { name: 'Buscar' }).click();
      await expect(page.locator('#pedidos tbody tr')).toHaveCount(1);
      const linha = page.locator(`#pedidos tr[data-numero="${aberto.numero}"]`);
      await expect(linha).toContainText('Aguardando pagamento');
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-loja-pedidos-busca-numero`);

      await linha.getByRole('link', { name: `nº ${aberto.numero}` }).click();
      await expect(page.getByRole('heading', { name: `Pedido nº ${aberto.numero}` })).toBeVisible();
      const item = page.locator(`tr[data-sku="${sku}"]`);
      await expect(item.locator('td[data-rotulo="Total da linha"]')).toHaveText(/R\$\s13,50/);
      await expect(page.getByText('Reserva expira')).toBeVisible();
      await page.getByRole('button', { name: 'Cancelar pedido' }).click();
      const confirmar = page.getByRole('group', { name: 'Confirmar cancelamento' });
      await expect(confirmar).toContainText(`Cancelar o pedido nº ${aberto.numero}?`);
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-loja-pedido-cancelar`);
      await confirmar.getByRole('button', { name: 'Confirmar cancelamento' }).click();
      await expect(
        page.getByText(`Pedido nº ${aberto.numero} cancelado: 3 unidades voltaram para a vitrine.`),
      ).toBeVisible();
      await expect(page.getByText('Cancelado', { exact: true })).toBeVisible();
      await expect(page.getByText('Reserva expira')).toHaveCount(0);
      // The shelf got the 3 units back; only the paid one left it.
      expect((await produtoNoMercado(sku)).disponivel).toBe(antes - 1);
      await semRolagemHorizontal(page);
      await foto(page, `${largura}-loja-pedido-cancelado`);

      await page.goto(`${principal().vitrine}/operador/pedidos/${pago.pedidoId}`);
      await expect(page.getByRole('heading', { name: `Pedido nº ${pago.numero}` })).toBeVisible();
      await expect(page.getByText(/^Pago em /)).toBeVisible();
      await expect(page.getByText('Reserva expira')).toHaveCount(0);
      await expect(page.getByRole('button', { name: 'Cancelar pedido' })).toHaveCount(0);
      await foto(page, `${largura}-loja-pedido-pago`);
    });
  });
}
