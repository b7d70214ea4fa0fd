import { useMutation, useQueryClient } from '@tanstack/react-query';
import { GiroMark } from '../../../shared/GiroMark';
import { ConsoleEventos } from '../../../shared/ConsoleEventos';
import { apiEventos } from '../../../shared/eventos';
import { pedir, sair, type Sessao } from '../api';
import { FormularioLote } from './FormularioLote';
import { Kpis } from './Kpis';
import { TabelaDemanda, TabelaReposicoes } from './Tabelas';

/** The storefront the sidebar links to (build time: VITE_VITRINE_URL). */
export const URL_VITRINE: string = import.meta.env.VITE_VITRINE_URL || 'http://localhost:15173';

const EVENTOS = apiEventos(pedir);

export function Painel({ sessao }: { sessao: Sessao }) {
  const cliente = useQueryClient();
  const saida = useMutation({
    mutationFn: sair,
    onSettled: () => {
      // Every cached query goes; the session one stays observed, now empty (→ login).
      cliente.removeQueries({ predicate: (q) => q.queryKey[0] !== 'sessao' });
      cliente.setQueryData(['sessao'], null);
    },
  });

  return (
    <div className="painel">
      <aside className="lateral" aria-label="Navegação do painel">
        <div className="lateral-marca">
          <GiroMark size={32} />
          <span className="lateral-nome">Girô · Estoque</span>
        </div>
        <nav className="lateral-nav">
          <a href="#entrada-lote">Entrada de lote</a>
          <a href="#demanda-reprimida">Demanda reprimida</a>
          <a href="#reposicoes">Reposições</a>
          <a href="#eventos">Eventos</a>
        </nav>
        <a className="lateral-vitrine" href={URL_VITRINE}>
          Ver a vitrine
        </a>
      </aside>
      <div className="principal">
        <header className="topo">
          <h1 className="t-title">Painel do estoque</h1>
          <div className="topo-operador">
            <span className="t-small muted" data-testid="operador">
              {sessao.usuario}
            </span>
            <button
              type="button"
              className="btn btn-contorno"
              disabled={saida.isPending}
              onClick={() => saida.mutate()}
            >
              Sair
            </button>
          </div>
        </header>
        <main className="conteudo-painel">
          <Kpis />
          <FormularioLote />
          <TabelaDemanda />
          <TabelaReposicoes />
          <ConsoleEventos api={EVENTOS} chave="painel" servico="estoque" />
        </main>
      </div>
    </div>
  );
}
