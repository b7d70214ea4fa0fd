import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { formatarDinheiro } from '../../../shared/formato';
import type { Produto } from '../api';
import { useCarrinho } from '../CarrinhoContext';
import { rotuloCategoria } from '../categorias';
import { AGUARDANDO_LOTE, REPOSICAO_A_CAMINHO } from '../mensagens';
import { Monograma } from './Monograma';
import { Selo } from './Selo';

export function CartaoProduto({ produto }: { produto: Produto }) {
  const { despachar } = useCarrinho();
  const [adicionado, setAdicionado] = useState(false);
  useEffect(() => {
    if (!adicionado) return;
    const t = setTimeout(() => setAdicionado(false), 1500);
    return () => clearTimeout(t);
  }, [adicionado]);
  const esgotado = produto.status === 'ESGOTADO' || produto.disponivel <= 0;

  return (
    <article className="cartao cartao-produto" data-sku={produto.sku}>
      <Link to={`/produtos/${produto.sku}`} className="cartao-produto-link">
        <Monograma nome={produto.nome} categoria={produto.categoria} imagem={produto.imagem} />
        <div className="cartao-produto-info">
          {produto.categoria && (
            <span className="t-overline muted">{rotuloCategoria(produto.categoria)}</span>
          )}
          <h3 className="cartao-produto-nome">{produto.nome}</h3>
        </div>
      </Link>
      <div className="cartao-produto-rodape">
        <div className="cartao-produto-preco">
          <Selo status={esgotado ? 'ESGOTADO' : 'DISPONIVEL'} />
          <span className="preco mono">{formatarDinheiro(produto.preco)}</span>
        </div>
        {esgotado ? (
          <p className="reposicao-a-caminho t-small">
            {produto.reposicaoACaminho ? REPOSICAO_A_CAMINHO : AGUARDANDO_LOTE}
          </p>
        ) : (
          <button
            type="button"
            className={`btn ${adicionado ? 'btn-sucesso' : 'btn-primario'}`}
            aria-label={`Adicionar ${produto.nome} ao carrinho`}
            onClick={() => {
              despachar({ tipo: 'adicionar', produto, qtd: 1 });
              setAdicionado(true);
            }}
          >
            {adicionado ? 'Adicionado ✓' : 'Adicionar'}
          </button>
        )}
      </div>
      <span role="status" className="sr-only">
        {adicionado ? `${produto.nome} adicionado ao carrinho` : ''}
      </span>
    </article>
  );
}
