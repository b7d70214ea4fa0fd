// The event console's banner when the peer is silent (issue 26, point 5), on the "curto" market:
// with its estoque paused, a product registered in mercado asks for a restock that cannot be
// delivered; once that request has waited SILENCIO_AVISO_SEGUNDOS (30 s) with no delivery since,
// mercado's console says the estoque has not answered, for how long and how many events wait —
// and the banner leaves by itself once the estoque answers again and the request goes through.
import { test, expect, foto, curto, entrar, operadorMercado, pausado } from './support/teste';

const SKU = '7890000000156';

test('console do mercado: aviso quando o estoque não responde, que some quando ele volta', async ({
  page,
}) => {
  // 30 s of silence to wait, plus the estoque's lookup timeout at registration.
  test.setTimeout(150_000);
  const m = curto();
  const mercado = await operadorMercado(m);
  await entrar(page, 'Eventos', `${m.vitrine}/operador/eventos`);
  const aviso = page.getByTestId('eventos-sem-resposta');
  await expect(aviso).toHaveCount(0);

  await pausado(m.pidEstoque, async () => {
    // Registered while estoque is silent (unclassified, as the spec allows): its
    // ReposicaoSolicitada is attempted and waits for the next attempt.
    const p = await mercado.post('/produtos', {
      sku: SKU,
      nome: 'Farinha de Mandioca 500g',
      preco: 7.9,
      estoqueMinimo: 1,
      estoqueIdeal: 5,
    });
    expect(p.status, JSON.stringify(p.corpo)).toBe(201);
    await expect(aviso).toBeVisible({ timeout: 90_000 });
    await expect(aviso).toHaveAttribute('role', 'alert');
    await expect(aviso).toContainText('O estoque não responde há');
    await expect(aviso).toContainText(/esperam? nova tentativa/);
    await expect(aviso).toContainText('confira se o estoque está no ar');
    await foto(page, 'operador-eventos-estoque-sem-resposta');
  });
  // The publisher's probe finds the estoque back and the request is delivered: no more banner.
  await expect(aviso).toHaveCount(0, { timeout: 60_000 });
});
