import { ConsoleEventos } from '../../../shared/ConsoleEventos';
import { apiEventos } from '../../../shared/eventos';
import { CascaOperador } from '../../../shared/Operador';
import { useEstreito } from '../../../shared/useEstreito';
import { pedir, servico, type Sessao } from '../api';
import { useUrlVitrine } from '../config';
import { hrefEstoque, useRota } from '../rota';
import { PaginaEstoque, PaginaSku } from './Estoque';
import { FormularioLote } from './FormularioLote';
import { Graficos } from './Graficos';
import { Kpis } from './Kpis';
import { TabelaDemanda, TabelaReposicoes } from './Tabelas';

const EVENTOS = apiEventos(pedir);

export function Painel({ sessao }: { sessao: Sessao }) {
  const rota = useRota();
  const urlVitrine = useUrlVitrine();
  // At phone width what needs attention comes first — the events (and the silent-peer alert),
  // then the demand waiting for a lot — and the lot form after them (issue 39).
  const estreito = useEstreito();
  // Keyed, so a resize across the breakpoint moves the sections instead of mounting them again
  // (an opened attempt history or confirmation stays open).
  const eventos = {
    ancora: 'eventos',
    nome: 'Eventos',
    el: <ConsoleEventos key="eventos" api={EVENTOS} chave="painel" servico="estoque" />,
  };
  const lote = {
    ancora: 'entrada-lote',
    nome: 'Entrada de lote',
    el: <FormularioLote key="lote" />,
  };
  const demanda = {
    ancora: 'demanda-reprimida',
    nome: 'Demanda reprimida',
    el: <TabelaDemanda key="demanda" />,
  };
  const reposicoes = {
    ancora: 'reposicoes',
    nome: 'Reposições',
    el: <TabelaReposicoes key="reposicoes" />,
  };
  const graficos = {
    ancora: 'graficos',
    nome: 'Gráficos',
    el: <Graficos key="graficos" eventos={EVENTOS} />,
  };
  // The menu lists the sections in the order the page shows them.
  const secoes = estreito
    ? [eventos, demanda, lote, reposicoes, graficos]
    : [lote, demanda, reposicoes, graficos, eventos];
  return (
    <CascaOperador
      servico={servico}
      sessao={sessao}
      titulo="Painel do estoque"
      rotuloNavegacao="Navegação do painel"
      urlVitrine={urlVitrine}
      navegacao={
        <>
          <a href={hrefEstoque()} aria-current={rota.pagina !== 'painel' ? 'page' : undefined}>
            Estoque
          </a>
          {secoes.map((s) => (
            <a key={s.ancora} href={`#${s.ancora}`}>
              {s.nome}
            </a>
          ))}
        </>
      }
    >
      <Kpis />
      {rota.pagina === 'estoque' ? (
        <PaginaEstoque key={JSON.stringify(rota.filtro)} filtro={rota.filtro} />
      ) : rota.pagina === 'sku' ? (
        <PaginaSku key={rota.sku} sku={rota.sku} />
      ) : (
        secoes.map((s) => s.el)
      )}
    </CascaOperador>
  );
}
