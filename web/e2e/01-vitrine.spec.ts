// The storefront against the real mercado (and, behind it, estoque and the outbox).
import {
  test,
  expect,
  foto,
  principal,
  produtoNoMercado,
  outroClienteCompra,
  produtoProprio,
} from './support/teste';
import { BANANA, COCA, PAO, SABAO, demo } from './support/demo';

const brl = (v: number) =>
  new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(v);

test.describe.configure({ mode: 'serial' });

test('catálogo: hero, chips de categoria, busca e vazios', async ({ page }) => {
  await page.goto(principal().vitrine);
  await expect(page).toHaveTitle('Girô mercado');
  await expect(page.getByText('Girô mercado', { exact: true })).toBeVisible();
  await expect(
    page.getByRole('heading', { level: 1, name: 'O estoque que gira sozinho' }),
  ).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Em alta' })).toBeVisible();
  const cartoes = page.locator('article.cartao-produto');
  await expect(cartoes).toHaveCount(8);
  // Available first, then by name (the API's order); the two with expired lots last.
  await expect(cartoes.last()).toContainText('Esgotado');

  // Chips from the classified catalogue (the tag-worker classified each lot at intake).
  const chips = page.getByRole('navigation', { name: 'Categorias' }).getByRole('link');
  await expect(chips).toHaveText([
    'Todos',
    'Bebidas',
    'Hortifrúti',
    'Laticínios',
    'Limpeza',
    'Mercearia',
    'Padaria',
  ]);

  // A sold-out product whose only lot expired: selo, no button, and no promise of a restock —
  // the warehouse denied the request for lack of a valid lot (issue 26).
  const pao = page.locator(`article[data-sku="${PAO}"]`);
  await expect(pao.getByText('Esgotado', { exact: true })).toBeVisible();
  await expect(pao.getByText('Esgotado — aguardando novo lote')).toBeVisible();
  await expect(pao.getByText('Reposição a caminho')).toHaveCount(0);
  await expect(pao.getByRole('button')).toHaveCount(0);
  const coca = page.locator(`article[data-sku="${COCA}"]`);
  await expect(coca.getByText('Em estoque')).toBeVisible();
  await expect(coca.getByText('R$ 8,99')).toBeVisible();
  await expect(
    coca.getByRole('button', { name: 'Adicionar Coca-Cola 2L PET ao carrinho' }),
  ).toBeVisible();
  await foto(page, 'vitrine');

  await chips.getByText('Limpeza').click();
  await expect(page).toHaveURL(/\?categoria=limpeza$/);
  await expect(page.getByRole('heading', { name: 'Limpeza', level: 2 })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'O estoque que gira sozinho' })).toHaveCount(0);
  await expect(cartoes).toHaveCount(2);
  await expect(
    page.locator(`article[data-sku="${SABAO}"]`).getByText('Esgotado — aguardando novo lote'),
  ).toBeVisible();
  await expect(chips.getByText('Limpeza')).toHaveAttribute('aria-current', 'page');
  await foto(page, 'vitrine-categoria');

  const busca = page.getByRole('searchbox', { name: 'Buscar produtos' });
  await expect(busca).toHaveAttribute('placeholder', 'Buscar produtos, marcas ou SKU…');
  await busca.fill('café');
  await busca.press('Enter');
  await expect(page).toHaveURL(/\?busca=caf%C3%A9$/);
  await expect(page.getByRole('heading', { name: 'Resultados para “café”' })).toBeVisible();
  await expect(cartoes).toHaveCount(1);
  await expect(cartoes).toContainText('Café Torrado e Moído 500g');

  // By SKU too.
  await busca.fill(BANANA);
  await busca.press('Enter');
  await expect(cartoes).toHaveCount(1);
  await expect(cartoes).toContainText('Banana Prata (kg)');

  await busca.fill('xyz-nada');
  await busca.press('Enter');
  await expect(page.getByText('Nenhum produto para “xyz-nada”')).toBeVisible();
  await expect(
    page.getByRole('list', { name: 'Categorias para continuar' }).getByRole('link').first(),
  ).toBeVisible();
  await foto(page, 'vitrine-busca-vazia');

  // An empty search goes back to the whole storefront.
  await busca.fill('  ');
  await busca.press('Enter');
  await expect(page).toHaveURL(`${principal().vitrine}/`);
  await expect(cartoes).toHaveCount(8);
});

test('produto: trilha, preço, SKU, quantidade na prateleira, sem tags; esgotado; 404', async ({
  page,
}) => {
  await page.goto(`${principal().vitrine}/produtos/${COCA}`);
  const trilha = page.getByRole('navigation', { name: 'Trilha' });
  await expect(trilha.getByRole('listitem')).toHaveText(['Início', 'Bebidas', 'Coca-Cola 2L PET']);
  await expect(page.getByRole('heading', { level: 1, name: 'Coca-Cola 2L PET' })).toBeVisible();
  await expect(page.getByText('R$ 8,99')).toBeVisible();
  await expect(page.getByText(`SKU/EAN ${COCA}`)).toBeVisible();
  const naPrateleira = (await produtoNoMercado(COCA)).disponivel;
  await expect(page.getByText(`${naPrateleira} unidades na prateleira`)).toBeVisible();
  // The classifier's raw tags are not for shoppers (issue 39 §4).
  await expect(page.getByRole('list', { name: 'Tags' })).toHaveCount(0);
  await expect(page.getByText('Reposição automática ativa')).toBeVisible();
  // The quantity stays within [1, disponível].
  const qtd = page.getByRole('spinbutton', { name: 'Quantidade' });
  await expect(qtd).toHaveValue('1');
  await expect(page.getByRole('button', { name: 'Diminuir quantidade' })).toBeDisabled();
  await qtd.fill('999');
  await expect(qtd).toHaveValue(String(naPrateleira));
  await expect(page.getByRole('button', { name: 'Aumentar quantidade' })).toBeDisabled();
  await foto(page, 'produto');

  await trilha.getByRole('link', { name: 'Bebidas' }).click();
  await expect(page).toHaveURL(/\?categoria=bebidas$/);

  await page.goto(`${principal().vitrine}/produtos/${PAO}`);
  await expect(page.getByText('Esgotado', { exact: true })).toBeVisible();
  await expect(
    page.getByText(
      'Acabou na prateleira e o estoque está sem lote válido. O produto volta sozinho assim que chegar um lote novo.',
    ),
  ).toBeVisible();
  await expect(page.getByRole('button', { name: 'Adicionar ao carrinho' })).toHaveCount(0);
  await foto(page, 'produto-esgotado');

  await page.goto(`${principal().vitrine}/produtos/00000000`);
  await expect(page.getByRole('heading', { name: 'Página não encontrada' })).toBeVisible();
  await page.goto(`${principal().vitrine}/nao/existe`);
  await expect(page.getByRole('heading', { name: 'Página não encontrada' })).toBeVisible();
  await foto(page, 'nao-encontrada');
  await page.getByRole('link', { name: 'Voltar para a vitrine' }).click();
  await expect(page.getByRole('heading', { name: 'Em alta' })).toBeVisible();
});

test('compra: adicionar, carrinho salvo, finalizar, contagem da reserva, pagar → "Pedido pago"', async ({
  page,
}) => {
  const antes = {
    coca: (await produtoNoMercado(COCA)).disponivel,
    banana: (await produtoNoMercado(BANANA)).disponivel,
  };
  await page.goto(principal().vitrine);
  const contador = page.getByTestId('contador-carrinho');
  await expect(contador).toHaveText('0');

  const adicionar = page.getByRole('button', { name: 'Adicionar Coca-Cola 2L PET ao carrinho' });
  await adicionar.click();
  await expect(adicionar).toHaveText('Adicionado ✓');
  await expect(
    page.getByRole('status').filter({ hasText: 'Coca-Cola 2L PET adicionado ao carrinho' }),
  ).toHaveCount(1);
  await expect(contador).toHaveText('1');
  await expect(adicionar).toHaveText('Adicionar', { timeout: 5000 }); // back after 1.5 s

  await page.goto(`${principal().vitrine}/produtos/${BANANA}`);
  await page.getByRole('button', { name: 'Aumentar quantidade' }).click();
  await page.getByRole('button', { name: 'Aumentar quantidade' }).click();
  await page.getByRole('button', { name: 'Adicionar ao carrinho' }).click();
  await expect(page.getByRole('button', { name: 'Adicionado ao carrinho ✓' })).toBeVisible();
  await expect(contador).toHaveText('4');

  await page.getByRole('link', { name: /^Carrinho/ }).click();
  await expect(page).toHaveURL(/\/carrinho$/);
  await expect(
    page.getByText(/^Ao finalizar, os itens ficam reservados na prateleira até o pagamento/),
  ).toBeVisible();
  const total = page.getByTestId('total-carrinho');
  await expect(total).toHaveText(brl(8.99 + 3 * 5.49)); // R$ 25,46
  await page.getByRole('button', { name: 'Aumentar quantidade de Coca-Cola 2L PET' }).click();
  await expect(total).toHaveText('R$ 34,45');

  // The cart is in localStorage["giro.carrinho"] and survives a reload.
  const salvo = await page.evaluate(() =>
    JSON.parse(localStorage.getItem('giro.carrinho') ?? 'null'),
  );
  expect(salvo).toEqual([
    {
      sku: COCA,
      nome: 'Coca-Cola 2L PET',
      preco: 8.99,
      categoria: 'bebidas',
      qtd: 2,
      disponivel: antes.coca,
    },
    {
      sku: BANANA,
      nome: 'Banana Prata (kg)',
      preco: 5.49,
      categoria: 'hortifruti',
      qtd: 3,
      disponivel: antes.banana,
    },
  ]);
  await page.reload();
  await expect(total).toHaveText('R$ 34,45');
  await foto(page, 'carrinho');

  await page.getByRole('button', { name: 'Finalizar compra' }).click();
  await expect(page).toHaveURL(/\/pedidos\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Pedido reservado');
  await expect(page.getByTestId('pedido-numero')).toHaveText(/^Pedido nº \d+ · feito em /);
  await expect(page.getByRole('timer')).toHaveText(
    /^Itens reservados no estoque por 1[45]:\d\d — garantimos que ninguém leva o último antes de você concluir o pagamento\.$/,
  );
  await expect(page.getByText('Pagamento simulado: nenhum valor é cobrado.')).toBeVisible();
  await expect(page.getByText('2 × Coca-Cola 2L PET')).toBeVisible();
  await expect(page.getByText('3 × Banana Prata (kg)')).toBeVisible();
  await expect(contador).toHaveText('0');
  expect(await page.evaluate(() => localStorage.getItem('giro.carrinho'))).toBe('[]');
  // The reservation debited the shelf at checkout.
  expect((await produtoNoMercado(COCA)).disponivel).toBe(antes.coca - 2);
  await foto(page, 'pedido-reservado');

  await page.getByRole('button', { name: 'Pagar R$ 34,45' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Pedido pago');
  await expect(page.getByText('Pagamento confirmado. Obrigado pela compra!')).toBeVisible();
  await expect(page.getByRole('button', { name: /^Pagar/ })).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Pedido pago');
  await foto(page, 'pedido-pago');
});

test('carrinho: o 409 ajusta a quantidade ("Só restam N", "Só resta 1", "Esgotou…")', async ({
  page,
}) => {
  // A product of its own whose only lot (5 units) is on the shelf: no restock can refill it.
  const sku = '7890000000017';
  await produtoProprio(sku, 'Biscoito Teste 409', 3.5, 5);
  await page.goto(`${principal().vitrine}/produtos/${sku}`);
  await page.getByRole('spinbutton', { name: 'Quantidade' }).fill('5');
  await page.getByRole('button', { name: 'Adicionar ao carrinho' }).click();
  await page.goto(`${principal().vitrine}/carrinho`);
  const qtd = page.getByRole('spinbutton', { name: 'Quantidade de Biscoito Teste 409' });
  await expect(qtd).toHaveValue('5');

  await outroClienteCompra(sku, 2); // 3 left
  await page.getByRole('button', { name: 'Finalizar compra' }).click();
  await expect(page.getByRole('alert')).toHaveText(
    'Só restam 3 unidades — ajustamos a quantidade.',
  );
  await expect(qtd).toHaveValue('3');
  await expect(page.getByRole('button', { name: 'Finalizar compra' })).toBeEnabled();
  await foto(page, 'carrinho-409');

  await outroClienteCompra(sku, 2); // 1 left
  await page.getByRole('button', { name: 'Finalizar compra' }).click();
  await expect(page.getByRole('alert')).toHaveText('Só resta 1 unidade — ajustamos a quantidade.');
  await expect(qtd).toHaveValue('1');

  await outroClienteCompra(sku, 1); // sold out; the warehouse has nothing left for it
  await page.getByRole('button', { name: 'Finalizar compra' }).click();
  await expect(page.getByRole('alert')).toHaveText(
    'Esgotou enquanto você comprava — removemos do carrinho.',
  );
  await expect(page.getByText('Seu carrinho está vazio.')).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('giro.carrinho'))).toBe('[]');
  expect((await produtoNoMercado(sku)).status).toBe('ESGOTADO');
});

test('carrinho: 422 (produto fora da vitrine), falha do serviço, dados corrompidos', async ({
  page,
}) => {
  const coca = demo(COCA);
  await page.goto(`${principal().vitrine}/`);
  // A cart saved earlier with a product that is no longer in the storefront.
  await page.evaluate(
    ([c]) =>
      localStorage.setItem(
        'giro.carrinho',
        JSON.stringify([
          {
            sku: c!.sku,
            nome: c!.nome,
            preco: c!.preco,
            categoria: 'bebidas',
            qtd: 1,
            disponivel: 10,
          },
          {
            sku: '7899999999999',
            nome: 'Produto Antigo',
            preco: 1.5,
            categoria: null,
            qtd: 1,
            disponivel: 3,
          },
        ]),
      ),
    [coca],
  );
  await page.goto(`${principal().vitrine}/carrinho`);
  await expect(page.getByTestId('total-carrinho')).toHaveText('R$ 10,49');
  await page.getByRole('button', { name: 'Finalizar compra' }).click();
  await expect(page.getByRole('alert')).toHaveText(
    'Um dos produtos saiu da vitrine. Remova-o e tente de novo.',
  );
  await foto(page, 'carrinho-422');

  // The service does not answer: the cart stays.
  await page.route('**/api/pedidos', (r) => r.abort('connectionrefused'));
  await page.getByRole('button', { name: 'Remover Produto Antigo do carrinho' }).click();
  await page.getByRole('button', { name: 'Finalizar compra' }).click();
  await expect(page.getByRole('alert')).toHaveText(
    'Não conseguimos finalizar agora. Seu carrinho continua salvo — tente de novo.',
  );
  await expect(page.getByTestId('total-carrinho')).toHaveText('R$ 8,99');
  await page.unroute('**/api/pedidos');

  // Whatever is in localStorage that is not a cart is discarded.
  await page.evaluate(() => localStorage.setItem('giro.carrinho', '{não é json'));
  await page.reload();
  await expect(page.getByText('Seu carrinho está vazio.')).toBeVisible();
  await expect(page.getByTestId('contador-carrinho')).toHaveText('0');
  await foto(page, 'carrinho-vazio');
});
