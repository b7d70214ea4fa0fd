// Issue 39 on the event console, on the "eventos" market (outboxes that give up after 2 attempts
// of 1 s): at 1280 px the console reads at a glance — the last error has room, the actions stay
// inside the card, the confirmation opens under the event at the table's width — and a replay
// says its outcome, not its submission: refused again while mercado is still paused, delivered
// once it is back (at 375 px, where each event is a card). The search finds an event by the start
// of its id and by words of the product's name.
import type { Locator, Page } from '@playwright/test';
import {
  test,
  expect,
  foto,
  entrar,
  eventos,
  loteQueAtende,
  pausado,
  produtoAguardandoLote,
  semRolagemHorizontal,
} from './support/teste';

test.describe.configure({ mode: 'serial' });

const SKU = '7890000000170';

/** `dentro` lies wholly inside `fora`, horizontally. */
async function cabeDentro(dentro: Locator, fora: Locator): Promise<void> {
  const a = (await dentro.boundingBox())!;
  const b = (await fora.boundingBox())!;
  expect(a.x, 'começa dentro').toBeGreaterThanOrEqual(b.x - 0.5);
  expect(a.x + a.width, 'termina dentro').toBeLessThanOrEqual(b.x + b.width + 0.5);
}

async function confirmarReenvio(page: Page, id: string): Promise<Locator> {
  const secao = page.locator('#eventos');
  await secao
    .locator(`tr[data-event-id="${id}"]`)
    .getByRole('button', { name: 'Reenviar' })
    .click();
  const confirmacao = secao.locator(`tr[data-confirmacao-de="${id}"]`);
  await expect(confirmacao.getByText('Reenviar este evento?')).toBeVisible();
  return confirmacao;
}

test('console a 1280 px: erro legível, ações no cartão, confirmação inteira; reenvio recusado de novo é dito', async ({
  page,
}) => {
  // A product waiting for a lot, then a dead letter with mercado paused: up to a minute.
  test.setTimeout(150_000);
  const m = eventos();
  await produtoAguardandoLote(m, {
    sku: SKU,
    descricao: 'DOCE DE LEITE CREMOSO 400G',
    ncm: '04029900',
    nome: 'Doce de Leite Cremoso 400g',
    preco: 12.9,
    vencido: { codigoLote: 'L-DDL-V', quantidade: 3 },
  });
  await entrar(page, 'Painel do estoque', m.painel);
  const secao = page.locator('#eventos');
  const morto = secao.locator('tr[data-status="FAILED"]', { hasText: SKU });

  await pausado(m.pidMercado, async () => {
    await loteQueAtende(m, SKU, 'L-DDL-01');
    await expect(morto).toBeVisible({ timeout: 30_000 });
    const id = (await morto.getAttribute('data-event-id')) ?? '';

    // The last error has room to be read, and every action is inside the card.
    const erro = morto.locator('td.evento-erro');
    expect((await erro.boundingBox())!.width).toBeGreaterThan(300);
    const botoes = morto.locator('td.evento-acoes .btn');
    for (let i = 0; i < (await botoes.count()); i++) await cabeDentro(botoes.nth(i), secao);

    // The confirmation: its own row, the table's width, inside the card.
    const confirmacao = await confirmarReenvio(page, id);
    await cabeDentro(confirmacao.getByRole('group', { name: 'Confirmação' }), secao);
    await cabeDentro(confirmacao.getByRole('button', { name: 'Confirmar reenvio' }), secao);
    await semRolagemHorizontal(page);
    await morto.scrollIntoViewIfNeeded();
    await foto(page, '1280-console-confirmacao');

    // mercado is still paused: the replay fails again, and the console says so.
    await confirmacao.getByRole('button', { name: 'Confirmar reenvio' }).click();
    const aviso = secao.getByTestId('eventos-aviso');
    await expect(aviso).toHaveAttribute('data-desfecho', 'recusado', { timeout: 30_000 });
    await expect(aviso).toContainText('O reenvio não deu certo: o evento falhou de novo');
    await expect(aviso).toHaveClass(/aviso-erro/);
    await expect(aviso).not.toContainText('reenviado: volta para a fila');
    await aviso.scrollIntoViewIfNeeded();
    await foto(page, '1280-console-reenvio-recusado');
  });
});

test('console a 375 px: o reenvio com o mercado de volta diz que foi entregue', async ({
  page,
}) => {
  const m = eventos();
  await page.setViewportSize({ width: 375, height: 812 });
  await entrar(page, 'Painel do estoque', m.painel);
  const secao = page.locator('#eventos');
  const morto = secao.locator('tr[data-status="FAILED"]', { hasText: SKU });
  await expect(morto).toBeVisible();
  const id = (await morto.getAttribute('data-event-id')) ?? '';
  const confirmacao = await confirmarReenvio(page, id);
  await cabeDentro(confirmacao.getByRole('button', { name: 'Confirmar reenvio' }), secao);
  await semRolagemHorizontal(page);
  await foto(page, '375-console-confirmacao');
  await confirmacao.getByRole('button', { name: 'Confirmar reenvio' }).click();
  const aviso = secao.getByTestId('eventos-aviso');
  await expect(aviso).toHaveAttribute('data-desfecho', 'entregue', { timeout: 30_000 });
  await expect(aviso).toContainText('Evento entregue: o mercado recebeu o reenvio.');
  await semRolagemHorizontal(page);
  await aviso.scrollIntoViewIfNeeded();
  await foto(page, '375-console-reenvio-entregue');
});

for (const largura of [1280, 375]) {
  test(`console a ${largura} px: busca pelo início do id e por palavras do nome do produto`, async ({
    page,
  }) => {
    const m = eventos();
    await page.setViewportSize({ width: largura, height: largura === 375 ? 812 : 800 });
    await entrar(page, 'Painel do estoque', m.painel);
    const secao = page.locator('#eventos');
    await secao.getByLabel('Status', { exact: true }).selectOption('');
    const linha = secao.locator('tr[data-event-id]', { hasText: SKU }).first();
    await expect(linha).toBeVisible();
    const id = (await linha.getAttribute('data-event-id')) ?? '';
    const campo = secao.getByLabel('Buscar por id, SKU ou produto');

    await campo.fill(id.slice(0, 8));
    await secao.getByRole('button', { name: 'Buscar' }).click();
    await expect(secao.locator('tr[data-event-id]')).toHaveCount(1);
    await expect(secao.locator(`tr[data-event-id="${id}"]`)).toBeVisible();

    // The warehouse writes it "DOCE DE LEITE CREMOSO 400G": case and order of words aside.
    await campo.fill('leite doce');
    await secao.getByRole('button', { name: 'Buscar' }).click();
    await expect(secao.locator(`tr[data-event-id="${id}"]`)).toBeVisible();
    await expect(secao.locator('tr[data-event-id]', { hasNotText: SKU })).toHaveCount(0);
    await semRolagemHorizontal(page);
    await secao.scrollIntoViewIfNeeded();
    await foto(page, `${largura}-console-busca-produto`);
  });
}
