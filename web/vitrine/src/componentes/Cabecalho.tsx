import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { GiroMark } from '../../../shared/GiroMark';
import { useCarrinho } from '../CarrinhoContext';
import { totalItens } from '../carrinho';

export function Cabecalho() {
  const { itens } = useCarrinho();
  const [params] = useSearchParams();
  const navegar = useNavigate();
  const busca = params.get('busca') ?? '';
  const [termo, setTermo] = useState(busca);
  // The field follows the URL when the search changes elsewhere (adjusted during render, as React
  // recommends, rather than in an effect that would render twice).
  const [buscaVista, setBuscaVista] = useState(busca);
  if (busca !== buscaVista) {
    setBuscaVista(busca);
    setTermo(busca);
  }
  const n = totalItens(itens);

  function buscar(e: FormEvent) {
    e.preventDefault();
    const t = termo.trim();
    navegar(t ? `/?busca=${encodeURIComponent(t)}` : '/');
  }

  return (
    <header className="cabecalho">
      <div className="cabecalho-conteudo">
        <Link to="/" className="marca" aria-label="Girô — início">
          <GiroMark size={32} />
          <span className="marca-nome">Girô</span>
        </Link>
        <form role="search" className="busca" onSubmit={buscar}>
          <label htmlFor="busca" className="sr-only">
            Buscar produtos
          </label>
          <input
            id="busca"
            type="search"
            placeholder="Buscar produtos, marcas ou SKU…"
            value={termo}
            onChange={(e) => setTermo(e.target.value)}
          />
          <button type="submit" className="btn btn-contorno busca-botao">
            Buscar
          </button>
        </form>
        <Link
          to="/carrinho"
          className="btn btn-contorno carrinho-botao"
          aria-label={`Carrinho, ${n} ${n === 1 ? 'item' : 'itens'}`}
        >
          <svg
            width="20"
            height="20"
            viewBox="0 0 24 24"
            aria-hidden="true"
            fill="none"
            stroke="currentColor"
            strokeWidth="2"
            strokeLinecap="round"
            strokeLinejoin="round"
          >
            <circle cx="9" cy="20" r="1.5" />
            <circle cx="18" cy="20" r="1.5" />
            <path d="M2 3h3l2.4 12.2a1.5 1.5 0 0 0 1.5 1.2h9.4a1.5 1.5 0 0 0 1.5-1.1L22 7H6" />
          </svg>
          <span className="carrinho-rotulo">Carrinho</span>
          <span className="badge" data-testid="contador-carrinho">
            {n}
          </span>
        </Link>
      </div>
    </header>
  );
}
