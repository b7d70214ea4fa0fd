import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { formatarDinheiro } from '../../../shared/formato';
import { buscarProduto } from '../api';
import { useCarrinho } from '../CarrinhoContext';
import { rotuloCategoria } from '../categorias';
import { ESGOTADO_A_CAMINHO, ESGOTADO_SEM_LOTE } from '../mensagens';
import { Carregando, ErroCarregar } from '../componentes/Estados';
import { Monograma } from '../componentes/Monograma';
import { Quantidade } from '../componentes/Quantidade';
import { Selo } from '../componentes/Selo';
import { PaginaNaoEncontrada } from './PaginaNaoEncontrada';

export function PaginaProduto() {
  const { sku = '' } = useParams();
  const consulta = useQuery({ queryKey: ['produto', sku], queryFn: () => buscarProduto(sku) });
  const { despachar } = useCarrinho();
  const [qtd, setQtd] = useState(1);
  const [adicionado, setAdicionado] = useState(false);
  useEffect(() => {
    if (!adicionado) return;
    const t = setTimeout(() => setAdicionado(false), 1500);
    return () => clearTimeout(t);
  }, [adicionado]);

  if (consulta.isPending) return <Carregando />;
  if (consulta.isError) return <ErroCarregar aoTentar={() => consulta.refetch()} />;
  const p = consulta.data;
  if (!p) return <PaginaNaoEncontrada />;
  const esgotado = p.status === 'ESGOTADO' || p.disponivel <= 0;
  const q = Math.min(qtd, Math.max(p.disponivel, 1));

  return (
    <article className="produto">
      <nav aria-label="Trilha" className="trilha t-small">
        <ol>
          <li>
            <Link to="/">Início</Link>
          </li>
          {p.categoria && (
            <li>
              <Link to={`/?categoria=${encodeURIComponent(p.categoria)}`}>
                {rotuloCategoria(p.categoria)}
              </Link>
            </li>
          )}
          <li aria-current="page">{p.nome}</li>
        </ol>
      </nav>
      <div className="produto-corpo">
        <Monograma nome={p.nome} categoria={p.categoria} imagem={p.imagem} grande />
        <div className="produto-detalhe">
          <Selo status={esgotado ? 'ESGOTADO' : 'DISPONIVEL'} />
          <h1 className="t-display">{p.nome}</h1>
          <p className="produto-preco mono">{formatarDinheiro(p.preco)}</p>
          <p className="t-small muted">
            SKU/EAN <span className="mono">{p.sku}</span>
          </p>
          {p.descricao && (
            <p className="produto-descricao" data-testid="descricao">
              {p.descricao}
            </p>
          )}
          {p.listado === false ? (
            <p className="aviso aviso-info" data-testid="fora-do-catalogo">
              Este produto saiu do catálogo e não pode mais ser comprado. Veja outros produtos na{' '}
              <Link to="/">vitrine</Link>.
            </p>
          ) : esgotado ? (
            <p className="aviso aviso-info">
              {p.reposicaoACaminho ? ESGOTADO_A_CAMINHO : ESGOTADO_SEM_LOTE}
            </p>
          ) : (
            <div className="produto-compra">
              <Quantidade
                id="qtd-produto"
                rotulo="Quantidade"
                valor={q}
                maximo={p.disponivel}
                aoMudar={setQtd}
              />
              <button
                type="button"
                className={`btn ${adicionado ? 'btn-sucesso' : 'btn-primario'}`}
                onClick={() => {
                  despachar({ tipo: 'adicionar', produto: p, qtd: q });
                  setAdicionado(true);
                }}
              >
                {adicionado ? 'Adicionado ao carrinho ✓' : 'Adicionar ao carrinho'}
              </button>
              <p className="t-small muted produto-prateleira">
                {p.disponivel === 1
                  ? '1 unidade na prateleira'
                  : `${p.disponivel} unidades na prateleira`}
              </p>
              <span role="status" className="sr-only">
                {adicionado ? `${p.nome} adicionado ao carrinho` : ''}
              </span>
            </div>
          )}
          <div className="cartao reposicao-card">
            <p className="t-label">Reposição automática ativa</p>
            <p className="t-small muted">
              Quando a prateleira fica abaixo do mínimo, o Girô pede a reposição ao estoque na hora
              e o produto volta sozinho.
            </p>
          </div>
        </div>
      </div>
    </article>
  );
}
