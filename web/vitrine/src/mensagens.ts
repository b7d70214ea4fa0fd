// Texts the cart shows after a failed checkout (SPEC §8.1).

export function mensagemSemEstoque(disponivel: number): string {
  if (disponivel <= 0) return 'Esgotou enquanto você comprava — removemos do carrinho.';
  if (disponivel === 1) return 'Só resta 1 unidade — ajustamos a quantidade.';
  return `Só restam ${disponivel} unidades — ajustamos a quantidade.`;
}

export const PRODUTO_SAIU = 'Um dos produtos saiu da vitrine. Remova-o e tente de novo.';
export const FALHA_CHECKOUT =
  'Não conseguimos finalizar agora. Seu carrinho continua salvo — tente de novo.';

// A sold-out product says what is true (issue 26): a restock on its way only while mercado's
// request to the warehouse is in flight; otherwise the warehouse has no valid lot to send.
export const REPOSICAO_A_CAMINHO = 'Reposição a caminho';
export const AGUARDANDO_LOTE = 'Esgotado — aguardando novo lote';
export const ESGOTADO_A_CAMINHO =
  'Acabou na prateleira. A reposição já foi pedida ao estoque e o produto volta sozinho.';
export const ESGOTADO_SEM_LOTE =
  'Acabou na prateleira e o estoque está sem lote válido. O produto volta sozinho assim que chegar um lote novo.';
