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
  /** `direita`: a measure of another kind (units beside counts) on its own axis, at the right. */
  eixo?: 'direita';
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
  /** The y axis' tick labels, all at once, so they share one unit ("0 min · 1 min · 2 min", not
   * "50 s · 1,7 min"); without it each tick is `formatarY`'s. */
  formatarTicksY?: (ticks: number[]) => string[];
  /** The steps the y axis' ticks may take (seconds: 15, 30, 60, 120…); uPlot's own otherwise. */
  passosY?: number[];
  altura?: number;
  /** Leading points with no value are not drawn, keeping at least this many (a fresh shop's
   * 24-hour chart shows its last hours, not 23 empty ones); the table keeps every point. */
  aparar?: number;
}

const formatoPadrao = (v: number) => v.toLocaleString('pt-BR', { maximumFractionDigits: 2 });

/** The value of a colour token on `el` (the dark theme's when it is on), or a neutral grey. */
function cor(el: Element, token: string): string {
  return getComputedStyle(el).getPropertyValue(token).trim() || '#888888';
}

/** The longest label under the x axis, upright or turned; the legend and the table keep the
 * whole name. */
const ROTULO_MAX = 14;
const ROTULO_MAX_GIRADO = 20;
const corte = (max: number) => (s: string) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
/** A label's width in px, roughly, in the axes' 12 px font. */
const PX_POR_LETRA = 7;

/** Whether no series has a value other than zero: an empty frame says so in words instead. */
export const semValores = (series: SerieGrafico[]) =>
  series.every((s) => s.valores.every((v) => v == null || v === 0));

/** The first point drawn: the first with a value, but at least `minimo` points from the end. */
export function inicioDesenhado(series: SerieGrafico[], n: number, minimo?: number): number {
  if (!minimo) return 0;
  const primeiro = Array.from({ length: n }, (_, i) => i).find((i) =>
    series.some((s) => (s.valores[i] ?? 0) !== 0),
  );
  return Math.max(0, Math.min(primeiro ?? n, n - minimo));
}

/** An axis as wide as its longest tick label (measured in the axis' font), so no label is clipped
 * at the chart's edge ("R$ 200,00", not "; 200,00"). */
const larguraDoEixo: uPlot.Axis.Size = (u, valores, i, ciclo) => {
  const eixo = u.axes[i]!;
  if (ciclo > 1) return (eixo as unknown as { _size: number })._size;
  const maior = (valores ?? []).reduce((a, v) => (String(v).length > a.length ? String(v) : a), '');
  const fonte = Array.isArray(eixo.font) ? eixo.font[0] : eixo.font;
  let largura = maior.length * 8;
  if (u.ctx && maior) {
    if (typeof fonte === 'string') u.ctx.font = fonte;
    largura = u.ctx.measureText(maior).width / (window.devicePixelRatio || 1);
  }
  return Math.ceil(largura + (eixo.ticks?.size ?? 10) + (eixo.gap ?? 5) + 8);
};

/** A round value a little above `v`: 48 → 60, 2 → 2,5, 69,93 → 80. */
export function topoRedondo(v: number): number {
  if (!(v > 0)) return 1;
  const alvo = v * 1.05;
  const ordem = 10 ** Math.floor(Math.log10(alvo));
  const passo = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].find((m) => m * ordem >= alvo) ?? 10;
  return passo * ordem;
}

/** A y scale from 0 (or below, for negatives) to a round value above the highest point: no
 * point or bar above the top of the chart; a whole one for counts. */
const faixaY =
  (inteiros: boolean): uPlot.Range.Function =>
  (_u, min, max) => {
    const topo = topoRedondo(max ?? 0);
    return [Math.min(0, min ?? 0), inteiros ? Math.max(1, Math.ceil(topo)) : topo];
  };

/** The steps of a count's axis: whole numbers only (no "0,5 pedido" gridline). */
const PASSOS_INTEIROS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000];

const maiorRotulo = (p: PropsGrafico, max: number) =>
  Math.max(...p.rotulosX.map((r) => corte(max)(r).length), 4);

/** Whether the x labels are turned upright at `largura` — names that do not fit side by side
 * (products) are, so they are read whole rather than cut at 14 letters — and then the chart's
 * height, grown by the labels' axis so the plot keeps its own. */
export function giro(p: PropsGrafico, largura: number) {
  const base = p.altura ?? 220;
  const girar =
    maiorRotulo(p, ROTULO_MAX) > 8 &&
    maiorRotulo(p, ROTULO_MAX) * PX_POR_LETRA + 12 > largura / p.rotulosX.length;
  const eixoX = girar ? maiorRotulo(p, ROTULO_MAX_GIRADO) * PX_POR_LETRA + 16 : 0;
  return { girar, eixoX, altura: base + eixoX };
}

function opcoes(el: HTMLElement, p: PropsGrafico, largura: number): uPlot.Options {
  const fmt = p.formatarY ?? formatoPadrao;
  const ticks = (splits: number[]) =>
    p.formatarTicksY
      ? p.formatarTicksY(splits)
      : // Each tick label once: a step finer than the format shows would repeat one.
        splits.map((s, i) => (i > 0 && fmt(s) === fmt(splits[i - 1]!) ? '' : fmt(s)));
  const direita = p.series.some((s) => s.eixo === 'direita');
  const inteira = (ss: SerieGrafico[]) =>
    ss.every((s) => s.valores.every((v) => v == null || Number.isInteger(v)));
  const esquerdas = p.series.filter((s) => s.eixo !== 'direita');
  const direitas = p.series.filter((s) => s.eixo === 'direita');
  const { girar, altura, eixoX } = giro(p, largura);
  const curto = corte(girar ? ROTULO_MAX_GIRADO : ROTULO_MAX);
  const espaco = girar ? 16 : Math.min(maiorRotulo(p, ROTULO_MAX) * PX_POR_LETRA + 12, 110);
  const eixo = cor(el, '--color-ink-muted');
  const grade = cor(el, '--color-border');
  const barras = uPlot.paths.bars ? uPlot.paths.bars({ size: [0.6, 48] }) : undefined;
  return {
    width: largura,
    height: altura,
    // The legend names each series by its colour; the numbers are in the table (a live legend
    // read "HORA: — PEDIDOS: —" until the pointer hovered a point).
    legend: { show: true, live: false },
    cursor: { drag: { x: false, y: false } },
    scales: {
      x: { time: false, range: [-0.5, Math.max(p.rotulosX.length - 0.5, 0.5)] },
      y: { range: faixaY(inteira(esquerdas)) },
      ...(direita ? { y2: { range: faixaY(inteira(direitas)) } } : {}),
    },
    axes: [
      {
        stroke: eixo,
        grid: { show: false },
        ticks: { stroke: grade },
        incrs: [1, 2, 3, 4, 6, 8, 12, 24],
        space: espaco,
        ...(girar ? { rotate: 90, size: eixoX } : {}),
        values: (_u, splits) => splits.map((s) => curto(p.rotulosX[Math.round(s)] ?? '')),
      },
      {
        scale: 'y',
        stroke: eixo,
        grid: { stroke: grade },
        ticks: { stroke: grade },
        ...(p.passosY
          ? { incrs: p.passosY }
          : inteira(esquerdas)
            ? { incrs: PASSOS_INTEIROS }
            : {}),
        values: (_u, splits) => ticks(splits),
        size: larguraDoEixo,
      },
      ...(direita
        ? [
            {
              scale: 'y2',
              side: 1,
              stroke: eixo,
              grid: { show: false },
              ticks: { stroke: grade },
              ...(inteira(direitas) ? { incrs: PASSOS_INTEIROS } : {}),
              values: (_u: uPlot, splits: number[]) => ticks(splits),
              size: larguraDoEixo,
            },
          ]
        : []),
    ],
    series: [
      { label: p.nomeX, value: (_u, i) => (i == null ? '—' : (p.rotulosX[Math.round(i)] ?? '')) },
      ...p.series.map((s) => {
        const c = cor(el, s.cor);
        const forma = s.forma ?? 'linha';
        return {
          label: s.eixo === 'direita' ? `${s.rotulo} (eixo à direita)` : s.rotulo,
          scale: s.eixo === 'direita' ? 'y2' : 'y',
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
  const vazio = semValores(p.series);
  // Redrawn when the numbers change (the queries refresh them), never per render.
  const chave = JSON.stringify([p.rotulosX, p.series, p.altura, p.aparar]);

  useEffect(() => {
    const el = area.current;
    if (!el) return;
    const largura = () => Math.max(el.clientWidth || 600, 240);
    const i0 = inicioDesenhado(p.series, p.rotulosX.length, p.aparar);
    const d: PropsGrafico = {
      ...p,
      rotulosX: p.rotulosX.slice(i0),
      series: p.series.map((s) => ({ ...s, valores: s.valores.slice(i0) })),
    };
    const dados: uPlot.AlignedData = [
      d.rotulosX.map((_, i) => i),
      ...d.series.map((s) => s.valores.map((v) => (v == null ? null : v))),
    ];
    let grafico = new uPlot(opcoes(el, d, largura()), dados, el);
    let girado = giro(d, largura()).girar;
    // A resize across the width where the labels turn draws the chart again; else it is resized.
    const observador =
      typeof ResizeObserver === 'undefined'
        ? null
        : new ResizeObserver(() => {
            const g = giro(d, largura());
            if (g.girar === girado) return grafico.setSize({ width: largura(), height: g.altura });
            grafico.destroy();
            grafico = new uPlot(opcoes(el, d, largura()), dados, el);
            girado = g.girar;
          });
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
      {vazio ? (
        <p className="grafico-vazio t-small muted">Nada a mostrar neste período.</p>
      ) : (
        <div className="grafico-area" ref={area} aria-hidden="true" />
      )}
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
