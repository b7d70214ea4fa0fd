// The second market: reservations of 4 s swept every second, no tag-worker, and a mercado the
// test pauses to see a shipment wait in estoque's outbox.
import {
  test,
  expect,
  foto,
  curto,
  entrar,
  operadorEstoque,
  pausado,
  produtoNoMercado,
} from './support/teste';
import { get } from './support/cliente';
import { COCA, PAO, diaSaoPaulo, demo } from './support/demo';

const num = (n: number) => new Intl.NumberFormat('pt-BR').format(n);

test.describe.configure({ mode: 'serial' });

test('reserva que vence: contagem, "O prazo da reserva terminou…", depois "Reserva expirada" e os itens de volta', async ({
  page,
}) => {
  const m = curto();
  const antes = (await produtoNoMercado(COCA, m)).disponivel;
  await page.goto(`${m.vitrine}/produtos/${COCA}`);
  await page.getByRole('button', { name: 'Adicionar ao carrinho' }).click();
  await page.goto(`${m.vitrine}/carrinho`);
  await page.getByRole('button', { name: 'Finalizar compra' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Pedido reservado');
  await expect(page.getByRole('timer')).toContainText(/por 00:0[0-4] —/);
  await expect(page.getByRole('button', { name: 'Pagar R$ 8,99' })).toBeVisible();
  expect((await produtoNoMercado(COCA, m)).disponivel).toBe(antes - 1);

  // The deadline passes: the page says so before the sweep's result comes back…
  await expect(
    page.getByText('O prazo da reserva terminou. Os itens voltam para a vitrine em instantes.'),
  ).toBeVisible();
  await expect(page.getByRole('button', { name: /^Pagar/ })).toHaveCount(0);
  await foto(page, 'pedido-prazo-terminou');
  // …then, asking again every 5 s, shows the order expired.
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Reserva expirada', {
    timeout: 20_000,
  });
  await expect(
    page.getByText('O prazo terminou sem pagamento e os itens voltaram para a vitrine.'),
  ).toBeVisible();
  await expect(page.getByText('O prazo da reserva terminou. Os itens voltam')).toHaveCount(0);
  expect((await produtoNoMercado(COCA, m)).disponivel).toBe(antes);
  await foto(page, 'pedido-expirado');
});

test('pagamento recusado (409): o relógio do navegador atrasado, o do mercado decide', async ({
  page,
}) => {
  const m = curto();
  // This browser's clock runs 10 minutes late: it still counts down when the reservation is over.
  await page.clock.install({ time: new Date(Date.now() - 10 * 60_000) });
  await page.goto(`${m.vitrine}/produtos/${COCA}`);
  await page.getByRole('button', { name: 'Adicionar ao carrinho' }).click();
  await page.goto(`${m.vitrine}/carrinho`);
  await page.getByRole('button', { name: 'Finalizar compra' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Pedido reservado');
  const id = page.url().split('/').pop()!;
  await expect(page.getByRole('timer')).toContainText(/por 10:0\d —/);
  await expect
    .poll(
      async () => ((await get(`${m.mercadoApi}/pedidos/${id}`)).corpo as { status: string }).status,
      {
        timeout: 20_000,
      },
    )
    .toBe('EXPIRADO');

  await page.getByRole('button', { name: 'Pagar R$ 8,99' }).click();
  await expect(page.getByRole('alert')).toHaveText(
    'O prazo da reserva terminou antes do pagamento.',
  );
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Reserva expirada');
  await expect(
    page.getByText('O prazo terminou sem pagamento e os itens voltaram para a vitrine.'),
  ).toBeVisible();
  await foto(page, 'pedido-pagamento-recusado');
});

test('reposição "enviando" enquanto o mercado não responde, "entregue" quando volta; tags pendentes sem tag-worker', async ({
  page,
}) => {
  const m = curto();
  await entrar(page, 'Painel do estoque', m.painel);
  const form = page.locator('#entrada-lote');
  await form.getByLabel('SKU/EAN').fill(PAO);
  await expect(
    form.getByText(
      'PAO DE FORMA INTEGRAL 400G · saldo 0 · 60 vencidas (sem saída: dê baixa no Estoque)',
    ),
  ).toBeVisible();

  // The market stops answering.
  await pausado(m.pidMercado, async () => {
    await form.getByLabel('Quantidade').fill('30');
    await form.getByLabel('Código do lote').fill('L-PAO-02');
    await form.getByLabel('Validade').fill(diaSaoPaulo(60));
    await form.getByRole('button', { name: 'Dar entrada no estoque' }).click();
    await expect(page.getByTestId('resultado-lote')).toHaveText(
      'Lote L-PAO-02 registrado. Saldo do SKU: 18. 1 demanda reprimida atendida. Tags pendentes: o produto será reclassificado depois.',
    );
    const linha = page.locator(`#reposicoes tr[data-sku="${PAO}"]`);
    await expect(linha.getByRole('cell')).toHaveText([
      /^\d\d:\d\d$/,
      PAO,
      'PAO DE FORMA INTEGRAL 400G',
      '12',
      'L-PAO-02',
      'enviando',
    ]);
    await foto(page, 'painel-enviando');
  });
  // The publisher retries with backoff; the dashboard asks again every 5 s.
  await expect(
    page.locator(`#reposicoes tr[data-sku="${PAO}"]`).getByRole('cell').last(),
  ).toHaveText('entregue', { timeout: 30_000 });
  expect((await produtoNoMercado(PAO, m)).disponivel).toBe(demo(PAO).ideal);
});

test('KPIs no formato pt-BR passando de mil, atualizados sem recarregar', async ({ page }) => {
  const m = curto();
  await entrar(page, 'Painel do estoque', m.painel);
  const cadastrados = page.getByTestId('kpi-skusCadastrados');
  await expect(cadastrados).toHaveText('SKUs cadastrados8');

  // 1 000 new SKUs through the API, each with a lot that expires in 10 days.
  const op = await operadorEstoque(m);
  const validade = diaSaoPaulo(10);
  const skus = Array.from({ length: 1000 }, (_, i) => `78912${String(i).padStart(8, '0')}`);
  for (let i = 0; i < skus.length; i += 10) {
    await Promise.all(
      skus.slice(i, i + 10).map(async (sku) => {
        const r = await op.post('/lotes', {
          sku,
          descricao: `PRODUTO DE CARGA ${sku}`,
          ncm: '19053100',
          codigoLote: 'L-CARGA',
          quantidade: 1,
          validade,
        });
        expect(r.status, JSON.stringify(r.corpo)).toBe(201);
      }),
    );
  }
  const resumo = (await op.get('/painel/resumo')).corpo as {
    skusCadastrados: number;
    lotesVencendo: number;
  };
  expect(resumo.skusCadastrados).toBe(1008);
  await expect(cadastrados).toHaveText(`SKUs cadastrados${num(resumo.skusCadastrados)}`, {
    timeout: 15_000,
  });
  await expect(cadastrados).toHaveText('SKUs cadastrados1.008');
  await expect(page.getByTestId('kpi-lotesVencendo')).toHaveText(
    `Lotes vencendo em 30 dias${num(resumo.lotesVencendo)}`,
  );
  expect(num(resumo.lotesVencendo)).toMatch(/^1\.\d{3}$/);
  await foto(page, 'painel-kpis-mil');
});
