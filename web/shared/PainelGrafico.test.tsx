import { render, screen, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import type { PropsGrafico } from './Grafico';
import { PainelGrafico, SecaoGraficos, seriesDe } from './PainelGrafico';

interface Ponto {
  rotulo: string;
  pedidos: number;
  pagos: number | null;
}

const PONTOS: Ponto[] = [
  { rotulo: '10:00', pedidos: 3, pagos: 2 },
  { rotulo: '11:00', pedidos: 1, pagos: null },
];

const figura = (id: string, titulo: string, pontos: Ponto[]): PropsGrafico => ({
  id,
  titulo,
  descricao: `${pontos.length} horas`,
  nomeX: 'Hora',
  rotulosX: pontos.map((p) => p.rotulo),
  series: seriesDe(pontos, [
    { rotulo: 'Pedidos', cor: '--color-info', forma: 'barras', valor: (p) => p.pedidos },
    { rotulo: 'Pagos', cor: '--color-success', valor: (p) => p.pagos },
  ]),
});

const linhas = (tabela: HTMLElement) =>
  within(tabela)
    .getAllByRole('row')
    .map((r) => Array.from(r.children).map((c) => c.textContent));

describe('seriesDe', () => {
  it('reads each series from every point, in order, keeping null where there is no value', () => {
    expect(
      seriesDe(PONTOS, [
        { rotulo: 'Pedidos', cor: '--color-info', forma: 'barras', valor: (p) => p.pedidos },
        { rotulo: 'Pagos', cor: '--color-success', valor: (p) => p.pagos },
      ]),
    ).toEqual([
      { rotulo: 'Pedidos', cor: '--color-info', forma: 'barras', valores: [3, 1] },
      { rotulo: 'Pagos', cor: '--color-success', valores: [2, null] },
    ]);
  });
});

/** The sales chart's panel in the state `consulta` gives. */
const painel = (data: Ponto[] | undefined, isError: boolean, controles?: ReactNode) => (
  <PainelGrafico
    consulta={{ data, isError }}
    oque="as vendas por hora"
    controles={controles}
    graficos={(d) => figura('g', 'Vendas', d)}
  />
);

describe('PainelGrafico', () => {
  it('says "Carregando…" until the first answer, with no figure', () => {
    render(painel(undefined, false));
    expect(screen.getByText('Carregando…')).toBeTruthy();
    expect(screen.queryByRole('figure')).toBeNull();
  });

  it('an error with nothing read says what failed, as an alert', () => {
    render(painel(undefined, true));
    expect(screen.getByRole('alert').textContent).toBe(
      'Não foi possível carregar as vendas por hora. A página tenta de novo sozinha.',
    );
    expect(screen.queryByRole('figure')).toBeNull();
  });

  it('a failed refresh keeps the last chart on screen', () => {
    render(painel(PONTOS, true));
    expect(screen.queryByRole('alert')).toBeNull();
    const fig = screen.getByRole('figure', { name: 'Vendas' });
    expect(linhas(within(fig).getByRole('table', { name: 'Vendas' }))).toEqual([
      ['Hora', 'Pedidos', 'Pagos'],
      ['10:00', '3', '2'],
      ['11:00', '1', 'sem dados'],
    ]);
  });

  it('draws every figure one answer gives, without a wrapper of its own', () => {
    const { container } = render(
      <PainelGrafico
        consulta={{ data: PONTOS, isError: false }}
        oque="as vendas"
        graficos={(d) => [figura('g-pedidos', 'Pedidos', d), figura('g-receita', 'Receita', d)]}
      />,
    );
    expect(screen.getAllByRole('figure').map((f) => f.getAttribute('data-testid'))).toEqual([
      'g-pedidos',
      'g-receita',
    ]);
    expect(Array.from(container.children).map((c) => c.tagName)).toEqual(['FIGURE', 'FIGURE']);
  });

  it('keeps its controls above the chart in every state', () => {
    const controles = (
      <div role="group" aria-label="Janela">
        <button type="button">24 h</button>
      </div>
    );
    const { container, rerender } = render(painel(undefined, false, controles));
    const bloco = () => container.firstElementChild as HTMLElement;
    expect(bloco().className).toBe('grafico-bloco');
    expect(Array.from(bloco().children).map((c) => c.tagName)).toEqual(['DIV', 'P']);
    expect(within(screen.getByRole('group', { name: 'Janela' })).getByRole('button')).toBeTruthy();
    rerender(painel(undefined, true, controles));
    expect(within(bloco()).getByRole('alert')).toBeTruthy();
    expect(screen.getByRole('group', { name: 'Janela' })).toBeTruthy();
    rerender(painel(PONTOS, false, controles));
    expect(bloco().className).toBe('grafico-bloco');
    expect(Array.from(bloco().children).map((c) => c.tagName)).toEqual(['DIV', 'FIGURE']);
  });
});

describe('SecaoGraficos', () => {
  it('is the page’s "Gráficos" section, its summary and its panels', () => {
    render(
      <SecaoGraficos resumo="Vendas e prateleira.">
        <p>um painel</p>
      </SecaoGraficos>,
    );
    const secao = screen.getByRole('region', { name: 'Gráficos' });
    expect(secao.id).toBe('graficos');
    expect(
      within(secao).getByText(
        'Vendas e prateleira. Os números de cada gráfico estão numa tabela para leitores de tela.',
      ),
    ).toBeTruthy();
    expect(within(secao).getByText('um painel').parentElement!.className).toBe('graficos');
  });
});
