import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { apiEventos } from '../../../shared/eventos';
import { pedir } from '../api';
import { fetchFalso, renderizar } from '../teste-util';
import { duracao, duracoesDoEixo, Graficos } from './Graficos';

const latencia = (horas: number) => ({
  status: 200,
  corpo: {
    horas,
    intervaloSegundos: (horas * 3600) / 24,
    pontos: Array.from({ length: 24 }, (_, i) => ({
      inicio: new Date(Date.UTC(2026, 0, 2, 10, 0) + i * 150_000).toISOString(),
      reposicoes: i === 10 ? 2 : 0,
      expedicao: i === 10 ? { p50: 31, p99: 59.42 } : { p50: null, p99: null },
      credito: i === 10 ? { p50: 37.5, p99: 69.35 } : { p50: null, p99: null },
    })),
  },
});
const FAIXAS = ['até 5 min', '5 a 30 min', '30 min a 2 h', '2 a 12 h', '12 a 24 h', 'mais de 24 h'];

function abrir() {
  return fetchFalso({
    'GET /api/painel/graficos/latencia-reposicao?horas=24': latencia(24),
    'GET /api/painel/graficos/latencia-reposicao?horas=6': latencia(6),
    'GET /api/painel/graficos/demanda-por-idade': {
      status: 200,
      corpo: FAIXAS.map((faixa, i) => ({
        faixa,
        desdeSegundos: [0, 300, 1800, 7200, 43200, 86400][i],
        demandas: [1, 2, 0, 0, 0, 1][i],
        unidades: [5, 10, 0, 0, 0, 9][i],
      })),
    },
    'GET /api/operacao/outbox/serie?minutos=60': {
      status: 200,
      corpo: {
        minutos: 60,
        pontos: [
          { minuto: '2026-01-02T10:00:00Z', enviados: 3, falhos: 0 },
          { minuto: '2026-01-02T10:01:00Z', enviados: 1, falhos: 2 },
        ],
      },
    },
  });
}

const linhas = (tabela: HTMLElement) =>
  within(tabela)
    .getAllByRole('row')
    .map((r) => Array.from(r.children).map((c) => c.textContent));

describe('Graficos (dashboard)', () => {
  it('restock latency: p50/p99 to shipment and to the shelf, with the numbers in a table', async () => {
    abrir();
    renderizar(<Graficos eventos={apiEventos(pedir)} />);
    const fig = await screen.findByRole('figure', { name: 'Latência das reposições' });
    expect(within(fig).getByText(/2 reposições nas últimas 24 h/)).toBeTruthy();
    const t = linhas(within(fig).getByRole('table'));
    expect(t[0]).toEqual([
      'Intervalo',
      'Expedição p50',
      'Expedição p99',
      'Prateleira p50',
      'Prateleira p99',
    ]);
    expect(t[11]!.slice(1)).toEqual(['31 s', '59 s', '38 s', '1,2 min']);
    expect(t[1]!.slice(1)).toEqual(['sem dados', 'sem dados', 'sem dados', 'sem dados']);
  });

  it('asks again for another window', async () => {
    const f = abrir();
    renderizar(<Graficos eventos={apiEventos(pedir)} />);
    await screen.findByRole('figure', { name: 'Latência das reposições' });
    fireEvent.click(screen.getByRole('button', { name: '6 h' }));
    expect(await screen.findByText(/nas últimas 6 h/)).toBeTruthy();
    expect(f).toHaveBeenCalledWith(
      '/api/painel/graficos/latencia-reposicao?horas=6',
      expect.anything(),
    );
    expect(screen.getByRole('button', { name: '6 h' }).getAttribute('aria-pressed')).toBe('true');
  });

  it('waiting demand by age and events per minute', async () => {
    abrir();
    renderizar(<Graficos eventos={apiEventos(pedir)} />);
    const demanda = await screen.findByRole('figure', { name: 'Demanda reprimida por idade' });
    expect(
      within(demanda).getByText('4 demandas esperando lote, por tempo de espera.'),
    ).toBeTruthy();
    expect(linhas(within(demanda).getByRole('table')).slice(1)).toEqual(
      FAIXAS.map((f, i) => [f, String([1, 2, 0, 0, 0, 1][i]), String([5, 10, 0, 0, 0, 9][i])]),
    );
    const eventos = await screen.findByRole('figure', { name: 'Eventos por minuto' });
    expect(within(eventos).getByText(/4 entregues, 2 falharam/)).toBeTruthy();
  });

  it('words durations for people', () => {
    expect(duracao(0.42)).toBe('0,42 s');
    expect(duracao(4.25)).toBe('4,3 s');
    expect(duracao(42)).toBe('42 s');
    expect(duracao(210)).toBe('3,5 min');
    // Issue 39: an axis' ticks in one unit, never "0 s · 50 s · 1,7 min".
    expect(duracoesDoEixo([0, 50, 100])).toEqual(['0 s', '50 s', '100 s']);
    expect(duracoesDoEixo([0, 120, 240, 360])).toEqual(['0 min', '2 min', '4 min', '6 min']);
    expect(duracoesDoEixo([0, 0.5, 1])).toEqual(['0 s', '0,5 s', '1 s']);
  });
});
