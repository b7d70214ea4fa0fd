// The frame of a chart panel (issue 26), one for the dashboard's and the operator pages' charts:
// the query's states (an error while nothing was ever read, "Carregando…" until the first answer)
// and then the figures drawn from its data, and the "Gráficos" section that holds the panels.
//
// An error only shows while there is no data: a refresh that fails keeps the last chart on
// screen (the queries ask again by themselves). While loading or failing there is no figure, so
// a figure found by its name always carries numbers.
import type { ReactNode } from 'react';
import { Grafico, type Forma, type PropsGrafico, type SerieGrafico } from './Grafico';

/** A series read from each point of the data: the value, or null where there is none. */
export interface SerieDe<P> {
  rotulo: string;
  cor: string;
  forma?: Forma;
  eixo?: 'direita';
  valor: (p: P) => number | null;
}

/** `defs` as the chart's series over `pontos`, in order. */
export function seriesDe<P>(pontos: readonly P[], defs: readonly SerieDe<P>[]): SerieGrafico[] {
  return defs.map(({ valor, ...s }) => ({ ...s, valores: pontos.map(valor) }));
}

export interface PropsPainelGrafico<D> {
  /** The query the panel shows: only what the frame reads of TanStack's result. */
  consulta: { data: D | undefined; isError: boolean };
  /** What failed to load, after "Não foi possível carregar" (e.g. "a idade da demanda"). */
  oque: string;
  /** The figure, or figures, its data draws. */
  graficos: (dados: D) => PropsGrafico | PropsGrafico[];
  /** Controls above the chart (e.g. its time window), kept on screen in every state. */
  controles?: ReactNode;
}

export function PainelGrafico<D>({ consulta, oque, graficos, controles }: PropsPainelGrafico<D>) {
  const corpo = (() => {
    const { data, isError } = consulta;
    if (isError && !data)
      return (
        <p className="aviso aviso-erro" role="alert">
          Não foi possível carregar {oque}. A página tenta de novo sozinha.
        </p>
      );
    if (!data) return <p className="muted">Carregando…</p>;
    const gs = graficos(data);
    return (Array.isArray(gs) ? gs : [gs]).map((g) => <Grafico key={g.id} {...g} />);
  })();
  if (!controles) return <>{corpo}</>;
  return (
    <div className="grafico-bloco">
      {controles}
      {corpo}
    </div>
  );
}

/** The "Gráficos" section of a page: its heading, what it shows, and its panels in a grid. */
export function SecaoGraficos({ resumo, children }: { resumo: string; children: ReactNode }) {
  return (
    <section id="graficos" className="cartao secao" aria-labelledby="titulo-graficos">
      <div className="secao-cabecalho">
        <h2 id="titulo-graficos" className="t-title">
          Gráficos
        </h2>
        <p className="t-small muted subtitulo">
          {resumo} Os números de cada gráfico estão numa tabela para leitores de tela.
        </p>
      </div>
      <div className="graficos">{children}</div>
    </section>
  );
}
