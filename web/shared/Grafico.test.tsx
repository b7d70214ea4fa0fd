import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Grafico, inicioDesenhado, topoRedondo } from './Grafico';
import { graficosDesenhados } from './teste-uplot';

const props = {
  id: 'g',
  titulo: 'Latência',
  descricao: 'p50 por intervalo',
  nomeX: 'Intervalo',
  rotulosX: ['10:00', '10:15'],
  series: [
    { rotulo: 'p50', valores: [1.5, null], cor: '--color-info' },
    { rotulo: 'Pedidos', valores: [3, 4], cor: '--color-brand', forma: 'barras' as const },
  ],
};

describe('Grafico', () => {
  it('hands uPlot the series on an index axis and labels the x axis with rotulosX', () => {
    graficosDesenhados.length = 0;
    render(<Grafico {...props} />);
    expect(graficosDesenhados).toHaveLength(1);
    const d = graficosDesenhados[0]!;
    expect(d.dados).toEqual([
      [0, 1],
      [1.5, null],
      [3, 4],
    ]);
    expect(d.opcoes.series.map((s) => s.label)).toEqual(['Intervalo', 'p50', 'Pedidos']);
    const eixoX = d.opcoes.axes![0]!.values as (u: unknown, s: number[]) => string[];
    expect(eixoX(null, [0, 1])).toEqual(['10:00', '10:15']);
  });

  it('gives screen readers the numbers in a table, "sem dados" where there is none', () => {
    render(<Grafico {...props} formatarY={(v) => `${v} s`} />);
    const fig = screen.getByRole('figure', { name: 'Latência' });
    const tabela = within(fig).getByRole('table', { name: 'Latência' });
    const linhas = within(tabela)
      .getAllByRole('row')
      .map((r) => Array.from(r.children).map((c) => c.textContent));
    expect(linhas).toEqual([
      ['Intervalo', 'p50', 'Pedidos'],
      ['10:00', '1.5 s', '3 s'],
      ['10:15', 'sem dados', '4 s'],
    ]);
    expect(within(fig).getByText('p50 por intervalo')).toBeTruthy();
  });

  it('issue 39: a legend of names (not "—"), y labels never clipped, another measure on its own axis', () => {
    graficosDesenhados.length = 0;
    render(
      <Grafico
        {...props}
        formatarY={(v) => `R$ ${v.toFixed(2)}`}
        series={[
          { rotulo: 'Demandas', valores: [3, 4], cor: '--color-danger', forma: 'barras' },
          { rotulo: 'Unidades', valores: [120, 300], cor: '--color-info', eixo: 'direita' },
        ]}
      />,
    );
    const o = graficosDesenhados[0]!.opcoes;
    expect(o.legend).toMatchObject({ show: true, live: false });
    // The y axis is as wide as its longest label, whatever it is.
    const eixoY = o.axes![1]!;
    expect(typeof eixoY.size).toBe('function');
    const medir = eixoY.size as (u: unknown, v: string[], i: number, c: number) => number;
    const u = { axes: o.axes, ctx: null };
    expect(medir(u, ['R$ 0,00', 'R$ 20.000,00'], 1, 0)).toBeGreaterThan(
      medir(u, ['R$ 0,00', 'R$ 20,00'], 1, 0),
    );
    expect(medir(u, ['R$ 0,00', 'R$ 20.000,00'], 1, 0)).toBeGreaterThan(64);
    // Units on a right-hand axis of their own, named so in the legend.
    expect(o.series.map((s) => s.scale)).toEqual([undefined, 'y', 'y2']);
    expect(o.series[2]!.label).toBe('Unidades (eixo à direita)');
    expect(o.axes!.map((a) => a.scale ?? 'x')).toEqual(['x', 'y', 'y2']);
    expect(o.axes![2]!.side).toBe(1);
    // The scale's top is a round value above the highest point.
    expect([48, 2, 69.93, 0].map(topoRedondo)).toEqual([60, 2.5, 80, 1]);
  });

  it('destroys the chart when it leaves the page', () => {
    graficosDesenhados.length = 0;
    const { unmount } = render(<Grafico {...props} />);
    unmount();
    expect(graficosDesenhados[0]!.destruido).toBe(true);
  });

  it('issue 39: a chart with no value says so instead of drawing empty axes; the table stays', () => {
    graficosDesenhados.length = 0;
    render(
      <Grafico
        {...props}
        series={[{ rotulo: 'Pedidos', valores: [0, null], cor: '--color-brand', forma: 'barras' }]}
      />,
    );
    expect(graficosDesenhados).toHaveLength(0);
    const fig = screen.getByRole('figure', { name: 'Latência' });
    expect(within(fig).getByText('Nada a mostrar neste período.')).toBeTruthy();
    expect(within(fig).getAllByRole('row')).toHaveLength(3);
  });

  it('issue 39: leading empty points are not drawn, down to `aparar` points; the table keeps all', () => {
    graficosDesenhados.length = 0;
    const horas = Array.from({ length: 24 }, (_, i) => `${String(i).padStart(2, '0')}:00`);
    const pedidos = horas.map((_, i) => (i === 22 ? 3 : 0));
    render(
      <Grafico
        {...props}
        rotulosX={horas}
        aparar={6}
        series={[{ rotulo: 'Pedidos', valores: pedidos, cor: '--color-brand', forma: 'barras' }]}
      />,
    );
    const d = graficosDesenhados[0]!;
    expect(d.dados[0]).toHaveLength(6);
    expect(d.dados[1]).toEqual([0, 0, 0, 0, 3, 0]);
    const eixoX = d.opcoes.axes![0]!.values as (u: unknown, s: number[]) => string[];
    expect(eixoX(null, [0])).toEqual(['18:00']);
    const fig = screen.getByRole('figure', { name: 'Latência' });
    expect(
      within(fig).getByRole('table', { name: 'Latência' }).querySelectorAll('tbody tr'),
    ).toHaveLength(24);
    expect(
      inicioDesenhado(
        [{ rotulo: 'x', cor: '', valores: pedidos.map((_, i) => (i === 2 ? 1 : 0)) }],
        24,
        6,
      ),
    ).toBe(2);
  });

  it('issue 39: product names that do not fit side by side are turned upright and read whole', () => {
    graficosDesenhados.length = 0;
    const nomes = Array.from({ length: 10 }, (_, i) => `Refrigerante Cola Zero ${i} 2L`);
    render(
      <Grafico
        {...props}
        rotulosX={nomes}
        series={[{ rotulo: 'Reposições', valores: nomes.map(() => 2), cor: '--color-danger' }]}
      />,
    );
    const eixo = graficosDesenhados[0]!.opcoes.axes![0]!;
    expect(eixo.rotate).toBe(90);
    const rotulos = (eixo.values as (u: unknown, s: number[]) => string[])(null, [0]);
    expect(rotulos[0]).toBe('Refrigerante Cola Z…');
    expect(rotulos[0]!.length).toBeGreaterThan(14);
    // The turned labels' axis adds to the chart's height: the plot keeps its 220 px.
    const o = graficosDesenhados[0]!.opcoes;
    expect(o.height).toBe(220 + (eixo.size as number));
    // Hours are short: upright, never turned.
    graficosDesenhados.length = 0;
    render(<Grafico {...props} />);
    expect(graficosDesenhados[0]!.opcoes.axes![0]!.rotate).toBeUndefined();
  });
});
