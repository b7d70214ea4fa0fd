import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { formatarCentavos, formatarDinheiro, centavos } from '../../../shared/formato';
import { buscarProduto, ErroApi, fecharPedido, novaChave } from '../api';
import { useCarrinho } from '../CarrinhoContext';
import { totalCentavos } from '../carrinho';
import { Monograma } from '../componentes/Monograma';
import { Quantidade } from '../componentes/Quantidade';
import { FALHA_CHECKOUT, mensagemSemEstoque, PRODUTO_SAIU } from '../mensagens';

export function PaginaCarrinho() {
  const { itens, despachar } = useCarrinho();
  const cliente = useQueryClient();
  const navegar = useNavigate();
  const [mensagem, setMensagem] = useState<string | null>(null);

  // One Idempotency-Key per checkout attempt: kept while the cart is the same (a retried click),
  // a new one once the cart changes.
  const tentativa = useRef<{ carrinho: string; chave: string } | null>(null);
  const checkout = useMutation({
    mutationFn: () => {
      const pedido = itens.map((i) => ({ sku: i.sku, qtd: i.qtd }));
      const carrinho = JSON.stringify(pedido);
      if (tentativa.current?.carrinho !== carrinho) {
        tentativa.current = { carrinho, chave: novaChave() };
      }
      return fecharPedido(pedido, tentativa.current.chave);
    },
    onMutate: () => setMensagem(null),
    onSuccess: async (fechado) => {
      despachar({ tipo: 'limpar' });
      await cliente.invalidateQueries({ queryKey: ['produtos'] });
      await cliente.invalidateQueries({ queryKey: ['produto'] });
      navegar(`/pedidos/${fechado.pedidoId}`);
    },
    onError: async (erro) => {
      if (
        erro instanceof ErroApi &&
        erro.status === 409 &&
        typeof erro.problema?.sku === 'string'
      ) {
        const sku = erro.problema.sku;
        let disponivel: number;
        try {
          const p = await buscarProduto(sku);
          disponivel = p && p.status !== 'ESGOTADO' ? p.disponivel : 0;
          cliente.setQueryData(['produto', sku], p);
        } catch {
          setMensagem(FALHA_CHECKOUT);
          return;
        }
        despachar({ tipo: 'atualizarDisponivel', sku, disponivel });
        void cliente.invalidateQueries({ queryKey: ['produtos'] });
        setMensagem(mensagemSemEstoque(disponivel));
      } else if (erro instanceof ErroApi && erro.status === 422) {
        setMensagem(PRODUTO_SAIU);
      } else {
        setMensagem(FALHA_CHECKOUT);
      }
    },
  });

  if (itens.length === 0) {
    return (
      <section className="carrinho carrinho-vazio">
        <h1 className="t-display">Carrinho</h1>
        {mensagem && (
          <p className="aviso aviso-erro" role="alert">
            {mensagem}
          </p>
        )}
        <p className="muted">Seu carrinho está vazio.</p>
        <Link to="/" className="btn btn-primario">
          Ver produtos
        </Link>
      </section>
    );
  }

  return (
    <section className="carrinho">
      <h1 className="t-display">Carrinho</h1>
      <p className="aviso aviso-info banner-reserva">
        Ao finalizar, os itens ficam reservados na prateleira até o pagamento — ninguém leva o
        último enquanto você paga.
      </p>
      <div className="carrinho-grade">
        <ul className="carrinho-itens" aria-label="Itens do carrinho">
          {itens.map((i) => (
            <li key={i.sku} className="cartao carrinho-item" data-sku={i.sku}>
              <Monograma nome={i.nome} categoria={i.categoria} />
              <div className="carrinho-item-info">
                <Link to={`/produtos/${i.sku}`} className="carrinho-item-nome">
                  {i.nome}
                </Link>
                <span className="t-small muted mono">{formatarDinheiro(i.preco)} cada</span>
              </div>
              <Quantidade
                id={`qtd-${i.sku}`}
                rotulo={`Quantidade de ${i.nome}`}
                valor={i.qtd}
                maximo={i.disponivel}
                aoMudar={(qtd) => despachar({ tipo: 'alterar', sku: i.sku, qtd })}
              />
              <span className="carrinho-item-subtotal mono">
                {formatarCentavos(centavos(i.preco) * i.qtd)}
              </span>
              <button
                type="button"
                className="btn btn-link"
                aria-label={`Remover ${i.nome} do carrinho`}
                onClick={() => despachar({ tipo: 'remover', sku: i.sku })}
              >
                Remover
              </button>
            </li>
          ))}
        </ul>
        <aside className="cartao resumo" aria-label="Resumo do pedido">
          <h2 className="t-title">Resumo</h2>
          <div className="resumo-linha">
            <span>Total</span>
            <strong className="mono" data-testid="total-carrinho">
              {formatarCentavos(totalCentavos(itens))}
            </strong>
          </div>
          {mensagem && (
            <p className="aviso aviso-erro" role="alert">
              {mensagem}
            </p>
          )}
          <button
            type="button"
            className="btn btn-primario resumo-botao"
            disabled={checkout.isPending}
            onClick={() => checkout.mutate()}
          >
            {checkout.isPending ? 'Reservando…' : 'Finalizar compra'}
          </button>
        </aside>
      </div>
    </section>
  );
}
