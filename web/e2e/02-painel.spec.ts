// The warehouse dashboard against the real estoque, and what its lot intake does to the storefront.
import {
  test,
  expect,
  foto,
  principal,
  estado,
  entrar,
  operadorEstoque,
  produtoNoMercado,
} from './support/teste';
import { PAO, SABAO, diaSaoPaulo } from './support/demo';
import type { Page } from '@playwright/test';

const num = (n: number) => new Intl.NumberFormat('pt-BR').format(n);

test.describe.configure({ mode: 'serial' });

async function resumoApi() {
  const r = await (await operadorEstoque()).get('/painel/resumo');
  return r.corpo as {
    skusCadastrados: number;
    skusSemSaldo: number;
    demandasAbertas: number;
    lotesVencendo: number;
  };
}

async function kpisIguaisAoResumo(page: Page, esperado: Awaited<ReturnType<typeof resumoApi>>) {
  await expect(page.getByTestId('kpi-skusCadastrados')).toHaveText(
    `SKUs cadastrados${num(esperado.skusCadastrados)}`,
  );
  await expect(page.getByTestId('kpi-skusSemSaldo')).toHaveText(
    `SKUs sem saldo válido${num(esperado.skusSemSaldo)}`,
  );
  await expect(page.getByTestId('kpi-demandasAbertas')).toHaveText(
    `Demanda reprimida${num(esperado.demandasAbertas)}`,
  );
  await expect(page.getByTestId('kpi-lotesVencendo')).toHaveText(
    `Lotes vencendo em 30 dias${num(esperado.lotesVencendo)}`,
  );
}

test('login: senha errada, estoque fora do ar, e entrada só com o teclado', async ({ page }) => {
  await page.goto(principal().painel);
  await expect(page.getByRole('heading', { name: 'Entrar no painel' })).toBeVisible();
  await foto(page, 'painel-login');
  await page.getByLabel('Usuário').fill(estado().usuario);
  await page.getByLabel('Senha').fill('senha-errada');
  await page.getByRole('button', { name: 'Entrar' }).click();
  await expect(page.getByRole('alert')).toHaveText('Usuário ou senha inválidos.');
  await foto(page, 'painel-login-erro');

  await page.route('**/api/sessao', (r) =>
    r.request().method() === 'POST' ? r.abort('connectionrefused') : r.continue(),
  );
  await page.getByRole('button', { name: 'Entrar' }).click();
  await expect(page.getByRole('alert')).toHaveText(
    'Não foi possível entrar. Verifique a conexão com o estoque-service.',
  );
  await page.unroute('**/api/sessao');

  // Keyboard only: labelled fields, Tab between them, Enter submits.
  await page.reload();
  await page.getByLabel('Usuário').focus();
  await page.keyboard.type(estado().usuario);
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Senha')).toBeFocused();
  await page.keyboard.type(estado().senha);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Painel do estoque' })).toBeVisible();
  await expect(page.getByTestId('operador')).toHaveText(estado().usuario);
  // The session survives a reload (cookie), and "Sair" ends it.
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Painel do estoque' })).toBeVisible();
  await page.getByRole('button', { name: 'Sair' }).click();
  await expect(page.getByRole('heading', { name: 'Entrar no painel' })).toBeVisible();
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Entrar no painel' })).toBeVisible();
});

test('painel: KPIs, demanda reprimida e reposições recentes do catálogo de demonstração', async ({
  page,
}) => {
  await entrar(page, 'Painel do estoque', principal().painel);
  await kpisIguaisAoResumo(page, await resumoApi());
  const lateral = page.getByRole('complementary', { name: 'Navegação do painel' });
  await expect(lateral.getByRole('link')).toHaveText([
    'Estoque',
    'Entrada de lote',
    'Demanda reprimida',
    'Reposições',
    'Gráficos',
    'Eventos',
    'Ver a vitrine',
  ]);
  // The storefront's URL is a run-time setting of the dashboard's listener (web.url-vitrine).
  await expect(lateral.getByRole('link', { name: 'Ver a vitrine' })).toHaveAttribute(
    'href',
    principal().vitrine,
  );

  const demanda = page.locator('#demanda-reprimida');
  const demandas = (await (await operadorEstoque()).get('/painel/demandas')).corpo as {
    sku: string;
  }[];
  await expect(demanda.getByText(`${demandas.length} pedidos aguardando lote`)).toBeVisible();
  await expect(demanda.getByRole('columnheader')).toHaveText(['SKU', 'Produto', 'Qtd', 'Desde']);
  await expect(demanda.locator(`tr[data-sku="${PAO}"]`).getByRole('cell')).toHaveText([
    PAO,
    'PAO DE FORMA INTEGRAL 400G',
    '12',
    /^(agora|há \d+ minutos?)$/,
  ]);
  await expect(demanda.locator(`tr[data-sku="${SABAO}"]`)).toBeVisible();

  const reposicoes = page.locator('#reposicoes');
  await expect(reposicoes.getByRole('columnheader')).toHaveText([
    'Quando',
    'SKU',
    'Produto',
    'Qtd',
    'Lote',
    'Status',
  ]);
  const coca = reposicoes.locator('tr[data-sku="7894900011517"]').last();
  await expect(coca.getByRole('cell')).toHaveText([
    /^\d\d:\d\d$/,
    '7894900011517',
    'COCA COLA 2L PET',
    '24',
    'L-COCA-01',
    'entregue',
  ]);
  await foto(page, 'painel');
});

test('entrada de lote: consulta do SKU, lote que atende a demanda reprimida, KPIs e reposições atualizam', async ({
  page,
}) => {
  await entrar(page, 'Painel do estoque', principal().painel);
  const antes = await resumoApi();
  const form = page.locator('#entrada-lote');
  const sku = form.getByLabel('SKU/EAN');
  await expect(
    form.getByText(
      'Ao dar entrada, o Girô classifica as tags do produto e atende a demanda reprimida deste SKU automaticamente.',
    ),
  ).toBeVisible();

  await sku.fill('12345');
  await expect(form.getByText('EAN-8 ou GTIN de 12 a 14 dígitos.')).toBeVisible();
  await sku.fill(PAO);
  // The 60 units of the expired lot are no balance (issue 26): said apart.
  await expect(
    form.getByText(
      'PAO DE FORMA INTEGRAL 400G · saldo 0 · 60 vencidas (sem saída: dê baixa no Estoque)',
    ),
  ).toBeVisible();
  await expect(form.getByLabel('Descrição')).toHaveCount(0);
  await form.getByLabel('Quantidade').fill('60');
  await form.getByLabel('Código do lote').fill('L-PAO-02');
  await form.getByLabel('Validade').fill(diaSaoPaulo(90));
  await form.getByRole('button', { name: 'Dar entrada no estoque' }).click();
  // 60 new − the 12 shipped at once to the pent-up demand (the 60 expired are no balance).
  await expect(page.getByTestId('resultado-lote')).toHaveText(
    'Lote L-PAO-02 registrado. Saldo do SKU: 48. 1 demanda reprimida atendida.',
  );
  await expect(sku).toHaveValue('');
  await foto(page, 'painel-lote-registrado');

  // The KPIs follow: one SKU less without valid balance, one demand less (the new lot expires in 90 days).
  await kpisIguaisAoResumo(page, {
    ...antes,
    skusSemSaldo: antes.skusSemSaldo - 1,
    demandasAbertas: antes.demandasAbertas - 1,
  });
  await expect(page.locator(`#demanda-reprimida tr[data-sku="${PAO}"]`)).toHaveCount(0);
  const nova = page.locator(`#reposicoes tr[data-sku="${PAO}"]`);
  // Delivered by the outbox right away; the dashboard sees it at its next 5 s refresh.
  await expect(nova.getByRole('cell')).toHaveText(
    [/^\d\d:\d\d$/, PAO, 'PAO DE FORMA INTEGRAL 400G', '12', 'L-PAO-02', 'entregue'],
    { timeout: 20_000 },
  );

  // The outbox took the shipment to the storefront: pão is back on the shelf.
  await expect.poll(async () => (await produtoNoMercado(PAO)).disponivel).toBe(12);
  const vitrine = await page.context().newPage();
  await vitrine.goto(`${principal().vitrine}/produtos/${PAO}`);
  await expect(vitrine.getByText('Em estoque')).toBeVisible();
  await expect(vitrine.getByText('12 unidades na prateleira')).toBeVisible();
  await vitrine.close();
});

test('entrada de lote: SKU novo com descrição e NCM, lote repetido, consulta que falha', async ({
  page,
}) => {
  await entrar(page, 'Painel do estoque', principal().painel);
  const antes = await resumoApi();
  const form = page.locator('#entrada-lote');
  const novo = '7890000000123';
  await form.getByLabel('SKU/EAN').fill(novo);
  await expect(form.getByText('SKU novo: informe descrição e NCM.')).toBeVisible();
  await form.getByLabel('Descrição').fill('BISCOITO RECHEADO CHOCOLATE 140G');
  await form.getByLabel('NCM').fill('19053100');
  await form.getByLabel('Quantidade').fill('1250');
  await form.getByLabel('Código do lote').fill('L-BISC-01');
  await form.getByLabel('Validade').fill(diaSaoPaulo(20));
  await foto(page, 'painel-sku-novo');
  await form.getByRole('button', { name: 'Dar entrada no estoque' }).click();
  // Classified by the tag-worker at intake; the balance in pt-BR format.
  await expect(page.getByTestId('resultado-lote')).toHaveText(
    'Lote L-BISC-01 registrado. Saldo do SKU: 1.250.',
  );
  await kpisIguaisAoResumo(page, {
    ...antes,
    skusCadastrados: antes.skusCadastrados + 1,
    lotesVencendo: antes.lotesVencendo + 1,
  });

  // Now known: the lookup shows it; the same lot code again is refused (409, its detail shown).
  await form.getByLabel('SKU/EAN').fill(novo);
  await expect(form.getByText('BISCOITO RECHEADO CHOCOLATE 140G · saldo 1.250')).toBeVisible();
  await form.getByLabel('Quantidade').fill('5');
  await form.getByLabel('Código do lote').fill('L-BISC-01');
  await form.getByRole('button', { name: 'Dar entrada no estoque' }).click();
  await expect(page.getByRole('alert')).toHaveText(
    `O lote L-BISC-01 já foi registrado para o SKU ${novo}. Confira se esta entrada já foi feita; se é outro lote, use um código novo.`,
  );

  // The lookup fails: said so, and the new-SKU fields are offered.
  await page.route('**/api/produtos/**', (r) =>
    r.fulfill({ status: 503, contentType: 'application/problem+json', body: '{"status":503}' }),
  );
  await form.getByLabel('SKU/EAN').fill('78900000');
  await expect(form.getByText('Não foi possível consultar o SKU.')).toBeVisible();
  await expect(form.getByLabel('Descrição')).toBeVisible();
  await expect(form.getByLabel('NCM')).toBeVisible();
});

test('entrada de lote vencido: o painel pergunta antes de enviar, e o lote entra sem sair para o mercado', async ({
  page,
}) => {
  await entrar(page, 'Painel do estoque', principal().painel);
  const antes = await resumoApi();
  const posts: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().endsWith('/api/lotes')) posts.push(r.postData() ?? '');
  });
  const form = page.locator('#entrada-lote');
  const sku = '7890000000163';
  const validade = diaSaoPaulo(-3);
  const [a, m, d] = validade.split('-');
  await form.getByLabel('SKU/EAN').fill(sku);
  await expect(form.getByText('SKU novo: informe descrição e NCM.')).toBeVisible();
  await form.getByLabel('Descrição').fill('IOGURTE NATURAL 170G');
  await form.getByLabel('NCM').fill('04032000');
  await form.getByLabel('Quantidade').fill('5');
  await form.getByLabel('Código do lote').fill('L-IOG-V');
  await form.getByLabel('Validade').fill(validade);
  await expect(
    form.getByText(
      'Esta validade já passou: o lote não atende demanda nenhuma. Confira a data na embalagem.',
    ),
  ).toBeVisible();

  // Submitting asks first; "Corrigir a validade" goes back to the date. Nothing is sent.
  await form.getByRole('button', { name: 'Dar entrada no estoque' }).click();
  const pergunta = form.getByRole('group', { name: 'Confirmar lote vencido' });
  await expect(pergunta).toContainText(
    `A validade ${d}/${m}/${a} já passou. O lote L-IOG-V vai entrar no estoque como vencido: não sai para o mercado, não atende demanda nenhuma e fica no Estoque para dar baixa. Registrar mesmo assim?`,
  );
  await expect(form.getByRole('button', { name: 'Registrar lote vencido' })).toBeFocused();
  await foto(page, 'painel-lote-vencido-pergunta');
  await form.getByRole('button', { name: 'Corrigir a validade' }).click();
  await expect(pergunta).toHaveCount(0);
  await expect(form.getByLabel('Validade')).toBeFocused();
  expect(posts).toEqual([]);

  // Asked again and confirmed: estoque takes it in (201) as expired, serving nothing.
  await form.getByRole('button', { name: 'Dar entrada no estoque' }).click();
  await form.getByRole('button', { name: 'Registrar lote vencido' }).click();
  await expect(page.getByTestId('resultado-lote')).toHaveText(
    'Lote L-IOG-V registrado. Saldo do SKU: 0. Lote vencido: não sai para o mercado; dê baixa nele no Estoque.',
  );
  expect(posts.map((p) => JSON.parse(p))).toEqual([
    expect.objectContaining({ sku, codigoLote: 'L-IOG-V', validade, confirmarVencido: true }),
  ]);
  await kpisIguaisAoResumo(page, {
    ...antes,
    skusCadastrados: antes.skusCadastrados + 1,
    skusSemSaldo: antes.skusSemSaldo + 1,
  });
  await form.getByLabel('SKU/EAN').fill(sku);
  await expect(
    form.getByText('IOGURTE NATURAL 170G · saldo 0 · 5 vencidas (sem saída: dê baixa no Estoque)'),
  ).toBeVisible();
});

test('erros de carga, "Tentar de novo", e um 401 qualquer volta ao login', async ({ page }) => {
  await page.route('**/api/painel/resumo', (r) =>
    r.fulfill({ status: 503, contentType: 'application/problem+json', body: '{"status":503}' }),
  );
  await page.route('**/api/painel/demandas', (r) => r.abort('connectionrefused'));
  await entrar(page, 'Painel do estoque', principal().painel);
  await expect(page.getByText('Não foi possível carregar. O estoque não respondeu.')).toBeVisible({
    timeout: 15_000,
  });
  await expect(
    page.getByText('Não foi possível carregar. Verifique a conexão com o estoque-service.'),
  ).toBeVisible({ timeout: 15_000 });
  await foto(page, 'painel-erro-carga');
  await page.unroute('**/api/painel/resumo');
  await page.unroute('**/api/painel/demandas');
  await page
    .locator('.kpis, .erro-carregamento')
    .first()
    .getByRole('button', { name: 'Tentar de novo' })
    .click();
  await expect(page.getByTestId('kpi-skusCadastrados')).toBeVisible();
  await page.locator('#demanda-reprimida').getByRole('button', { name: 'Tentar de novo' }).click();
  await expect(page.locator('#demanda-reprimida table')).toBeVisible();

  // The session ends elsewhere (another tab logs out): the next poll gets 401 → login.
  await page.evaluate(async () => {
    const token = document.cookie
      .split('; ')
      .find((c) => c.startsWith('XSRF-ESTOQUE='))!
      .split('=')[1]!;
    await fetch('/api/sessao', { method: 'DELETE', headers: { 'X-XSRF-TOKEN': token } });
  });
  await expect(page.getByRole('heading', { name: 'Entrar no painel' })).toBeVisible({
    timeout: 15_000,
  });
});
