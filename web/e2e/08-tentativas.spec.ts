// The event console's attempt history (issue 26) on the "eventos" market, whose outboxes give up
// after 2 attempts of 1 s: with mercado paused, a shipment's two attempts fail and it becomes a
// dead letter; the dashboard opens its history (each attempt, how long ago, its outcome, its
// error), at 1280 and at 375 px, and after the replay the history ends with the delivery.
import {
  test,
  expect,
  foto,
  confirmarReenvio,
  entrar,
  eventos,
  loteQueAtende,
  pausado,
  produtoAguardandoLote,
  semRolagemHorizontal,
} from './support/teste';

test.describe.configure({ mode: 'serial' });

const SKU = '7890000000149';

test('painel: as tentativas de um evento que falhou, e a entrega depois do reenvio', async ({
  page,
}) => {
  const m = eventos();
  // Only an expired lot: mercado's request waits in the warehouse for a lot.
  await produtoAguardandoLote(m, {
    sku: SKU,
    descricao: 'GELEIA DE GOIABA 320G',
    ncm: '20079990',
    nome: 'Geleia de Goiaba 320g',
    preco: 11.5,
    vencido: { codigoLote: 'L-GOI-V', quantidade: 4 },
  });

  await entrar(page, 'Painel do estoque', m.painel);
  const secao = page.locator('#eventos');
  const morto = secao.locator('tr[data-status="FAILED"]', { hasText: SKU });
  // mercado paused: the shipment's two attempts time out and it becomes a dead letter.
  await pausado(m.pidMercado, async () => {
    await loteQueAtende(m, SKU, 'L-GOI-01');
    await expect(morto).toBeVisible({ timeout: 30_000 });
  });
  const id = (await morto.getAttribute('data-event-id')) ?? '';
  expect(id).not.toBe('');

  // The history: attempt 2 made it a dead letter, attempt 1 was retried; each with its error.
  const ver = morto.getByRole('button', { name: 'Tentativas' });
  await ver.click();
  await expect(ver).toHaveAttribute('aria-expanded', 'true');
  const historico = secao.locator(`tr[data-tentativas-de="${id}"]`);
  const lista = historico.getByRole('list', {
    name: 'Tentativas de entrega, da mais recente à mais antiga',
  });
  const itens = lista.getByRole('listitem');
  await expect(itens).toHaveCount(2);
  await expect(itens.nth(0)).toContainText(/Tentativa 2 · há \d+ (s|min) · falha definitiva/);
  await expect(itens.nth(1)).toContainText(/Tentativa 1 · há \d+ (s|min) · falha transitória/);
  for (const i of [0, 1])
    await expect(itens.nth(i).locator('.evento-tentativa-erro')).not.toBeEmpty();
  await expect(morto.locator('.evento-erro > .mono').first()).toHaveText(
    (await itens.nth(0).locator('.evento-tentativa-erro').textContent()) ?? '',
  );
  await historico.scrollIntoViewIfNeeded();
  await foto(page, 'painel-eventos-tentativas');

  // At 375 px the event is a card and its history fits in it.
  await page.setViewportSize({ width: 375, height: 812 });
  await expect(itens).toHaveCount(2);
  await semRolagemHorizontal(page);
  await historico.scrollIntoViewIfNeeded();
  await foto(page, 'painel-eventos-tentativas-375');
  await page.setViewportSize({ width: 1280, height: 800 });

  // Replayed with mercado back: delivered at the first attempt of the replay, recorded after the
  // failures (the count starts over).
  await morto.getByRole('button', { name: 'Reenviar' }).click();
  const entregue = await confirmarReenvio(secao, morto, id);
  await entregue.getByRole('button', { name: 'Tentativas' }).click();
  const depois = secao.locator(`tr[data-tentativas-de="${id}"]`).getByRole('listitem');
  await expect(depois).toHaveCount(3);
  await expect(depois.nth(0)).toContainText(/Tentativa 1 · há \d+ s · entregue/);
  await expect(depois.nth(1)).toContainText('Tentativa 2');
  await entregue.scrollIntoViewIfNeeded();
  await foto(page, 'painel-eventos-tentativas-entregue');
  await expect(secao.getByTestId('eventos-falhos')).toContainText('0');
});
