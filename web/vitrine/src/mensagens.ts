// Texts the cart shows after a failed checkout (SPEC §8.1).

export function mensagemSemEstoque(disponivel: number): string {
  if (disponivel <= 0) return 'Esgotou enquanto você comprava — removemos do carrinho.';
  if (disponivel === 1) return 'Só resta 1 unidade — ajustamos a quantidade.';
  return `Só restam ${disponivel} unidades — ajustamos a quantidade.`;
}

export const PRODUTO_SAIU = 'Um dos produtos saiu da vitrine. Remova-o e tente de novo.';
export const FALHA_CHECKOUT =
  'Não conseguimos finalizar agora. Seu carrinho continua salvo — tente de novo.';
