// A chart (issue 26): uPlot draws on a canvas — no inline script and no style attribute in
// markup, so it works under the fronts' CSP (style-src 'self': uPlot sets sizes through the
// CSSOM, which CSP allows) — and a visually hidden table gives screen readers the same
// numbers. uPlot was chosen over Recharts for its size (≈50 kB minified against ≈400 kB with
// its d3 dependencies) and because it has no dependency of its own.
//
// The x axis is categorical (an index per point, its label from `rotulosX`): the series are
// already aggregated by the server, one value per interval, band or product.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './grafico.css';

export type Forma = 'linha' | 'barras' | 'pontos';

export interface SerieGrafico {
  rotulo: string;
  valores: (number | null)[];
  /** A colour token of tokens.css (e.g. `--color-brand`): the canvas cannot read CSS itself. */
  cor: string;
  forma?: Forma;
}

export interface PropsGrafico {
  /** The chart's id; its table's caption and the figure's label are `titulo`. */
  id: string;
  titulo: string;
  /** What the chart shows, for everyone (the figure's caption). */
  descricao: string;
  /** The x axis' name in the table's header. */
  nomeX: string;
  rotulosX: string[];
  series: SerieGrafico[];
  formatarY?: (v: number) => string;
  altura?: number;
}

const formatoPadrao = (v: number) => v.toLocaleString('pt-BR', { maximumFractionDigits: 2 });

/** The value of a colour token on `el` (the dark theme's when it is on), or a neutral grey. */
function cor(el: Element, token: string): string {
  return getComputedStyle(el).getPropertyValue(token).trim() || '#888888';
}

/** The longest label under the x axis; the legend and the table keep the whole name. */
const ROTULO_MAX = 14;
const curto = (s: string) => (s.length > ROTULO_MAX ? `${s.slice(0, ROTULO_MAX - 1)}…` : s);

function opcoes(el: HTMLElement, p: PropsGrafico, largura: number): uPlot.Options {
  const fmt = p.formatarY ?? formatoPadrao;
  // Room for the longest label between two ticks: uPlot skips labels rather than overlap them.
  const espaco = Math.min(Math.max(...p.rotulosX.map((r) => curto(r).length), 4) * 7 + 12, 110);
  const eixo = cor(el, '--color-ink-muted');
  const grade = cor(el, '--color-border');
  const barras = uPlot.paths.bars ? uPlot.paths.bars({ size: [0.6, 48] }) : undefined;
  return {
    width: largura,
    height: p.altura ?? 220,
    legend: { show: true },
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: false, range: [-0.5, Math.max(p.rotulosX.length - 0.5, 0.5)] } },
    axes: [
      {
        stroke: eixo,
        grid: { show: false },
        ticks: { stroke: grade },
        incrs: [1, 2, 3, 4, 6, 8, 12, 24],
        space: espaco,
        values: (_u, splits) => splits.map((s) => curto(p.rotulosX[Math.round(s)] ?? '')),
      },
      {
        stroke: eixo,
        grid: { stroke: grade },
        ticks: { stroke: grade },
        // Each tick label once: a step finer than the format shows would repeat one.
        values: (_u, splits) =>
          splits.map((s, i) => (i > 0 && fmt(s) === fmt(splits[i - 1]!) ? '' : fmt(s))),
        size: 64,
      },
    ],
    series: [
      { label: p.nomeX, value: (_u, i) => (i == null ? '—' : (p.rotulosX[Math.round(i)] ?? '')) },
      ...p.series.map((s) => {
        const c = cor(el, s.cor);
        const forma = s.forma ?? 'linha';
        return {
          label: s.rotulo,
          stroke: c,
          width: forma === 'pontos' ? 0 : 2,
          fill: forma === 'barras' ? c : undefined,
          paths: forma === 'barras' ? barras : forma === 'pontos' ? () => null : undefined,
          points: {
            show: forma !== 'barras',
            size: forma === 'pontos' ? 9 : 5,
            fill: c,
            stroke: c,
          },
          spanGaps: false,
          value: (_u: uPlot, v: number | null) => (v == null ? '—' : fmt(v)),
        };
      }),
    ],
  };
}

export function Grafico(p: PropsGrafico) {
  const area = useRef<HTMLDivElement>(null);
  const fmt = p.formatarY ?? formatoPadrao;
  // Redrawn when the numbers change (the queries refresh them), never per render.
  const chave = JSON.stringify([p.rotulosX, p.series, p.altura]);

  useEffect(() => {
    const el = area.current;
    if (!el) return;
    const largura = () => Math.max(el.clientWidth || 600, 240);
    const dados: uPlot.AlignedData = [
      p.rotulosX.map((_, i) => i),
      ...p.series.map((s) => s.valores.map((v) => (v == null ? null : v))),
    ];
    const grafico = new uPlot(opcoes(el, p, largura()), dados, el);
    const observador =
      typeof ResizeObserver === 'undefined'
        ? null
        : new ResizeObserver(() => grafico.setSize({ width: largura(), height: p.altura ?? 220 }));
    observador?.observe(el);
    return () => {
      observador?.disconnect();
      grafico.destroy();
    };
    // `chave` stands for the props the chart is drawn from.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [chave]);

  return (
    <figure className="grafico" aria-labelledby={`${p.id}-titulo`} data-testid={p.id}>
      <figcaption>
        <h3 id={`${p.id}-titulo`} className="t-title">
          {p.titulo}
        </h3>
        <p className="t-small muted">{p.descricao}</p>
      </figcaption>
      <div className="grafico-area" ref={area} aria-hidden="true" />
      {/* A table ignores a width below its content's: the wrapper is what is clipped. */}
      <div className="sr-only">
        <table>
          <caption>{p.titulo}</caption>
          <thead>
            <tr>
              <th scope="col">{p.nomeX}</th>
              {p.series.map((s) => (
                <th key={s.rotulo} scope="col">
                  {s.rotulo}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {p.rotulosX.map((x, i) => (
              <tr key={`${x}-${i}`}>
                <th scope="row">{x}</th>
                {p.series.map((s) => {
                  const v = s.valores[i];
                  return <td key={s.rotulo}>{v == null ? 'sem dados' : fmt(v)}</td>;
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
