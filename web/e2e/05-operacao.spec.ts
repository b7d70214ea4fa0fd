// The operator's side (issue 18) on the "eventos" market, whose outboxes give up after 2
// attempts of 1 s: the dashboard's event console replays a dead letter that then ends SENT,
// mercado's operator pages (login, each registration error in the spec's words, a product whose
// shelf fills by itself) and its console discards a dead letter.
import type { Page } from '@playwright/test';
import {
  test,
  expect,
  foto,
  confirmarReenvio,
  entrar,
  estado,
  eventos,
  loteQueAtende,
  operadorEstoque,
  pausado,
  produtoAguardandoLote,
  produtoNoMercado,
} from './support/teste';
import { diaSaoPaulo } from './support/demo';

test.describe.configure({ mode: 'serial' });

const SKU_REENVIO = '7890000000101';
const SKU_CADASTRO = '7890000000118';
const SKU_DESCARTE = '7890000000125';
const SKU_DESCONHECIDO = '7890000000999';

test('painel: um evento que falhou aparece com o erro, é reenviado pela página e termina entregue', async ({
  page,
}) => {
  const m = eventos();
  // A SKU whose only lot expired: the storefront's first request is denied for lack of balance
  // and waits for a lot (pent-up demand in the warehouse).
  await produtoAguardandoLote(m, {
    sku: SKU_REENVIO,
    descricao: 'MEL SILVESTRE 300G',
    ncm: '04090000',
    nome: 'Mel Silvestre 300g',
    preco: 18.9,
    vencido: { codigoLote: 'L-MEL-V', quantidade: 5 },
  });

  await entrar(page, 'Painel do estoque', m.painel);
  const secao = page.locator('#eventos');
  await expect(secao.getByText('Nenhum evento falhou.', { exact: false })).toBeVisible();

  let id = '';
  await pausado(m.pidMercado, async () => {
    // The lot serves the demand; its ReposicaoEnviada finds mercado silent twice: a dead letter.
    await loteQueAtende(m, SKU_REENVIO, 'L-MEL-01');
    const linha = secao.locator('tr[data-status="FAILED"]', { hasText: 'ReposicaoEnviada' });
    await expect(linha).toBeVisible({ timeout: 30_000 });
    await expect(linha.locator('.evento-erro > .mono')).not.toBeEmpty();
    await expect(secao.getByTestId('eventos-falhos')).toContainText('1');
    id = (await linha.getAttribute('data-event-id')) ?? '';
    await linha.getByText('Payload').click();
    await expect(linha.locator('pre')).toContainText(SKU_REENVIO);
    await secao.scrollIntoViewIfNeeded();
    await foto(page, 'painel-eventos-falhou');
  });

  // mercado answers again: the operator replays it from the page, with a confirmation.
  const linha = secao.locator(`tr[data-event-id="${id}"]`);
  await linha.getByRole('button', { name: 'Reenviar' }).click();
  // The confirmation opens in a row of its own under the event, the table's width (issue 39).
  const confirmacao = secao.locator(`tr[data-confirmacao-de="${id}"]`);
  await expect(confirmacao.getByText('Reenviar este evento?')).toBeVisible();
  await expect(confirmacao.getByRole('button', { name: 'Confirmar reenvio' })).toBeInViewport();
  await foto(page, 'painel-eventos-confirmacao');
  await confirmarReenvio(secao, linha, id);
  await expect(secao.getByTestId('eventos-falhos')).toContainText('0');
  await foto(page, 'painel-eventos-entregue');
  await expect.poll(async () => (await produtoNoMercado(SKU_REENVIO, m)).disponivel).toBe(6);
});

async function preencher(
  page: Page,
  c: { sku: string; nome: string; preco: string; minimo: string; ideal: string },
) {
  await page.getByLabel('SKU/EAN').fill(c.sku);
  await page.getByLabel('Nome na vitrine').fill(c.nome);
  await page.getByLabel('Preço (R$)').fill(c.preco);
  await page.getByLabel('Estoque mínimo').fill(c.minimo);
  await page.getByLabel('Estoque ideal').fill(c.ideal);
}

test('operação do mercado: login, cada erro do cadastro, um produto que enche a prateleira sozinho', async ({
  page,
}) => {
  const m = eventos();
  const estoque = await operadorEstoque(m);
  const lote = await estoque.post('/lotes', {
    sku: SKU_CADASTRO,
    descricao: 'GRANOLA TRADICIONAL 800G',
    ncm: '19042000',
    codigoLote: 'L-GRAN-01',
    quantidade: 8,
    validade: diaSaoPaulo(120),
  });
  expect(lote.status, JSON.stringify(lote.corpo)).toBe(201);

  await page.goto(`${m.vitrine}/operador/`);
  await expect(page.getByRole('heading', { name: 'Entrar na operação do mercado' })).toBeVisible();
  await foto(page, 'operador-login');
  await page.getByLabel('Usuário').fill(estado().usuario);
  await page.getByLabel('Senha').fill('senha-errada');
  await page.getByRole('button', { name: 'Entrar' }).click();
  await expect(page.getByRole('alert')).toHaveText('Usuário ou senha inválidos.');
  await entrar(page, 'Operação do mercado');

  // The design's fonts, from the build (no request leaves the origin: the fixture checks).
  await expect
    .poll(() =>
      page.evaluate(() => {
        const carregadas: string[] = [];
        document.fonts.forEach((f) => {
          if (f.status === 'loaded') carregadas.push(f.family.replace(/"/g, ''));
        });
        return carregadas;
      }),
    )
    .toEqual(expect.arrayContaining(['Inter', 'Bricolage Grotesque', 'JetBrains Mono']));

  const erro = page.getByTestId('cadastro-erro');
  const cadastrar = page.getByRole('button', { name: 'Cadastrar produto' });

  // 400: an empty form, every field named.
  await cadastrar.click();
  await expect(erro).toContainText('requisição inválida: ');
  await expect(erro).toContainText('nome não deve estar em branco');
  await foto(page, 'operador-cadastro-400');

  // 400: minimum above ideal, in the rule's words.
  await preencher(page, {
    sku: SKU_CADASTRO,
    nome: 'Granola da Casa',
    preco: '12,50',
    minimo: '5',
    ideal: '2',
  });
  await expect(page.locator('#ajuda-sku')).toHaveText('No estoque: GRANOLA TRADICIONAL 800G');
  await cadastrar.click();
  await expect(erro).toHaveText(
    'exigido 1 <= estoqueMinimo <= estoqueIdeal; recebido min=5 ideal=2',
  );

  // 422: a SKU the warehouse does not know (the lookup already says so).
  await preencher(page, {
    sku: SKU_DESCONHECIDO,
    nome: 'Nada',
    preco: '1,00',
    minimo: '1',
    ideal: '2',
  });
  await expect(page.locator('#ajuda-sku')).toHaveText(
    `SKU desconhecido no estoque: ${SKU_DESCONHECIDO}`,
  );
  await cadastrar.click();
  await expect(erro).toHaveText(`SKU desconhecido no estoque: ${SKU_DESCONHECIDO}`);
  await foto(page, 'operador-cadastro-422');

  // 409: already in the storefront (the previous test's product).
  await preencher(page, {
    sku: SKU_REENVIO,
    nome: 'Mel de novo',
    preco: '18,90',
    minimo: '2',
    ideal: '6',
  });
  await cadastrar.click();
  await expect(erro).toHaveText(`Produto já cadastrado na vitrine: ${SKU_REENVIO}`);

  // Registered: the shelf starts empty and fills by itself up to the ideal.
  await preencher(page, {
    sku: SKU_CADASTRO,
    nome: 'Granola da Casa',
    preco: '12,50',
    minimo: '2',
    ideal: '8',
  });
  await cadastrar.click();
  await expect(page.getByTestId('cadastro-ok')).toHaveText(
    'Produto Granola da Casa cadastrado. A reposição automática já pediu o primeiro lote ao estoque.',
  );
  const linha = page.locator(`#produtos tr[data-sku="${SKU_CADASTRO}"]`);
  await expect(linha.getByTestId('prateleira')).toHaveText('8', { timeout: 20_000 });
  await expect(linha).toContainText('Em estoque');
  await expect(linha.getByTestId('reposicao')).toHaveText('—');
  await expect(linha).toContainText('R$\u00a012,50');
  await foto(page, 'operador-produtos');
});

test('operação do mercado: um evento que falhou é descartado pela página', async ({ page }) => {
  const m = eventos();
  await entrar(page, 'Operação do mercado', `${m.vitrine}/operador/eventos`);
  await expect(page.getByRole('heading', { name: 'Eventos' })).toBeVisible();

  await pausado(m.pidEstoque, async () => {
    // Registered while estoque is silent (unclassified, as the spec allows); its
    // ReposicaoSolicitada gives up after 2 attempts: a dead letter in mercado's outbox.
    await page.getByRole('link', { name: 'Produtos' }).click();
    await preencher(page, {
      sku: SKU_DESCARTE,
      nome: 'Aveia em Flocos',
      preco: '6,40',
      minimo: '1',
      ideal: '4',
    });
    await page.getByRole('button', { name: 'Cadastrar produto' }).click();
    await expect(page.getByTestId('cadastro-ok')).toBeVisible({ timeout: 15_000 });
    await expect(page.locator(`#produtos tr[data-sku="${SKU_DESCARTE}"]`)).toContainText(
      'Esgotado',
    );
    await page.getByRole('link', { name: 'Eventos' }).click();
    const secao = page.locator('#eventos');
    const linha = secao.locator('tr[data-status="FAILED"]', { hasText: 'ReposicaoSolicitada' });
    await expect(linha).toBeVisible({ timeout: 30_000 });
    await expect(linha.locator('.evento-erro > .mono')).not.toBeEmpty();
    await foto(page, 'operador-eventos-falhou');
    const id = await linha.getAttribute('data-event-id');

    // The confirmation says what the discard does to the restock request, and asks why.
    await linha.getByRole('button', { name: 'Descartar' }).click();
    const confirmacao = secao.locator(`tr[data-confirmacao-de="${id}"]`);
    await expect(confirmacao.getByText('Descartar este evento?')).toBeVisible();
    await expect(confirmacao.getByTestId('evento-efeito')).toContainText('cancela a solicitação');
    await confirmacao.getByLabel('Motivo').fill('produto fora de linha');
    await confirmacao.getByRole('button', { name: 'Confirmar descarte' }).click();
    await expect(secao.getByTestId('eventos-aviso')).toContainText(
      'Evento ReposicaoSolicitada descartado. Solicitação de reposição do SKU',
    );
    await expect(secao.locator(`tr[data-event-id="${id}"]`)).toHaveCount(0);
    await expect(secao.getByText('Nenhum evento falhou.', { exact: false })).toBeVisible();
    await foto(page, 'operador-eventos-descartado');
  });
});
