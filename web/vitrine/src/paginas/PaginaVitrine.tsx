import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { listarProdutos } from '../api';
import { categoriasDoCatalogo, rotuloCategoria } from '../categorias';
import { CartaoProduto } from '../componentes/CartaoProduto';
import { Carregando, ErroCarregar } from '../componentes/Estados';

export function PaginaVitrine() {
  const [params] = useSearchParams();
  const categoria = params.get('categoria')?.trim() || undefined;
  const busca = params.get('busca')?.trim() || undefined;
  const filtrado = Boolean(categoria || busca);

  // The chips come from the whole catalogue, whatever the filter.
  const catalogo = useQuery({ queryKey: ['produtos', {}], queryFn: () => listarProdutos() });
  const lista = useQuery({
    queryKey: ['produtos', { categoria, busca }],
    queryFn: () => listarProdutos({ categoria, busca }),
  });
  const categorias = categoriasDoCatalogo(catalogo.data ?? []);

  const titulo = busca
    ? `Resultados para “${busca}”`
    : categoria
      ? rotuloCategoria(categoria)
      : 'Em alta';

  return (
    <>
      {!filtrado && (
        <section className="hero">
          <p className="t-overline hero-overline">Girô mercado</p>
          <h1 className="t-display-lg">O estoque que gira sozinho</h1>
          <p className="t-body-lg hero-texto">
            Quando a prateleira baixa do mínimo, o Girô pede a reposição ao estoque sozinho — e o
            produto volta para a vitrine sem ninguém precisar lembrar.
          </p>
        </section>
      )}
      {categorias.length > 0 && (
        <nav className="chips" aria-label="Categorias">
          <Link
            to="/"
            className={`chip${!categoria ? ' chip-ativo' : ''}`}
            aria-current={!categoria ? 'page' : undefined}
          >
            Todos
          </Link>
          {categorias.map((c) => (
            <Link
              key={c}
              to={`/?categoria=${encodeURIComponent(c)}`}
              className={`chip${categoria === c ? ' chip-ativo' : ''}`}
              aria-current={categoria === c ? 'page' : undefined}
            >
              {rotuloCategoria(c)}
            </Link>
          ))}
        </nav>
      )}
      <section aria-labelledby="titulo-lista">
        <h2 id="titulo-lista" className="t-title titulo-lista">
          {titulo}
        </h2>
        {lista.isPending ? (
          <Carregando />
        ) : lista.isError ? (
          <ErroCarregar aoTentar={() => lista.refetch()} />
        ) : lista.data.length === 0 ? (
          busca ? (
            <div className="vazio" data-testid="busca-vazia">
              <p className="t-title">Nenhum produto para “{busca}”</p>
              <p className="muted">
                Confira a grafia ou use menos palavras
                {categorias.length > 0 ? '; ou veja uma categoria:' : '.'}
              </p>
              {categorias.length > 0 && (
                <ul className="chips" aria-label="Categorias para continuar">
                  {categorias.map((c) => (
                    <li key={c}>
                      <Link to={`/?categoria=${encodeURIComponent(c)}`} className="chip">
                        {rotuloCategoria(c)}
                      </Link>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          ) : (
            <p className="vazio muted">
              {filtrado ? 'Nenhum produto nesta categoria.' : 'Nenhum produto nesta vitrine ainda.'}
            </p>
          )
        ) : (
          <div className="grade">
            {lista.data.map((p) => (
              <CartaoProduto key={p.sku} produto={p} />
            ))}
          </div>
        )}
      </section>
    </>
  );
}
