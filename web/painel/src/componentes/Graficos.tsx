// The dashboard's charts (issue 26): restock latency, waiting demand by age and events per
// minute. Stock against the market's minimum and ideal is on mercado's operator home: estoque
// never learns those thresholds (see crates/giro-servicos/src/estoque/painel.rs).
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { GraficoEventos } from '../../../shared/GraficoEventos';
import { type ApiEventos } from '../../../shared/eventos';
import { contagem, formatarInteiro, hhmm } from '../../../shared/formato';
import { PainelGrafico, SecaoGraficos, seriesDe } from '../../../shared/PainelGrafico';
import { ATUALIZACAO_MS } from '../consultas';
import { demandaPorIdade, JANELAS_HORAS, latenciaReposicao, type Latencia } from '../graficos';

/** Seconds as people read a latency: "0,42 s", "4,2 s", "42 s", "3,5 min". */
export function duracao(s: number): string {
  if (s < 60) {
    const casas = s < 1 ? 2 : s < 10 ? 1 : 0;
    return `${s.toLocaleString('pt-BR', { maximumFractionDigits: casas })} s`;
  }
  return `${(s / 60).toLocaleString('pt-BR', { maximumFractionDigits: 1 })} min`;
}

/** A latency axis' ticks in one unit, chosen by the largest: "0 s · 30 s · 60 s" or
 * "0 min · 2 min · 4 min", never "50 s · 1,7 min" (issue 39). */
export function duracoesDoEixo(ticks: number[]): string[] {
  const maior = Math.max(0, ...ticks.map(Math.abs));
  const casas = (m: number) => (m < 1 ? 2 : m < 10 ? 1 : 0);
  if (maior >= 120)
    return ticks.map(
      (s) =>
        `${(s / 60).toLocaleString('pt-BR', { maximumFractionDigits: casas(maior / 60) })} min`,
    );
  return ticks.map(
    (s) => `${s.toLocaleString('pt-BR', { maximumFractionDigits: casas(maior) })} s`,
  );
}

/** Steps a latency axis may take, in seconds: round in seconds below two minutes, in minutes
 * above. */
export const PASSOS_DURACAO = [
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 20, 30, 60, 120, 180, 300, 600, 900, 1800, 3600,
  7200, 14400,
];

function rotuloIntervalo(inicio: string, l: Latencia): string {
  const d = new Date(inicio);
  const hm = hhmm(d);
  return l.horas > 24
    ? `${d.toLocaleDateString('pt-BR', { day: '2-digit', month: '2-digit' })} ${hm}`
    : hm;
}

export function GraficoLatencia() {
  const [horas, setHoras] = useState<number>(24);
  const q = useQuery({
    queryKey: ['painel', 'graficos', 'latencia', horas],
    queryFn: () => latenciaReposicao(horas),
    refetchInterval: ATUALIZACAO_MS * 5,
  });
  return (
    <PainelGrafico
      consulta={q}
      oque="a latência das reposições"
      controles={
        <div className="graficos-janela" role="group" aria-label="Janela da latência">
          {JANELAS_HORAS.map((h) => (
            <button
              key={h}
              type="button"
              className={h === horas ? 'btn btn-secundario' : 'btn btn-contorno'}
              aria-pressed={h === horas}
              onClick={() => setHoras(h)}
            >
              {h} h
            </button>
          ))}
        </div>
      }
      graficos={(l) => {
        const total = l.pontos.reduce((n, p) => n + p.reposicoes, 0);
        return {
          id: 'grafico-latencia',
          titulo: 'Latência das reposições',
          descricao:
            total === 0
              ? `Nenhuma reposição nas últimas ${l.horas} h.`
              : `Do pedido à expedição e do pedido ao crédito na prateleira do mercado, p50 e p99 por intervalo de ${duracao(l.intervaloSegundos)}; ${contagem(total, 'reposição', 'reposições')} nas últimas ${l.horas} h.`,
          nomeX: 'Intervalo',
          rotulosX: l.pontos.map((p) => rotuloIntervalo(p.inicio, l)),
          series: seriesDe(l.pontos, [
            { rotulo: 'Expedição p50', cor: '--color-info', valor: (p) => p.expedicao.p50 },
            { rotulo: 'Expedição p99', cor: '--color-brand-2', valor: (p) => p.expedicao.p99 },
            { rotulo: 'Prateleira p50', cor: '--color-success', valor: (p) => p.credito.p50 },
            { rotulo: 'Prateleira p99', cor: '--color-accent', valor: (p) => p.credito.p99 },
          ]),
          formatarY: duracao,
          formatarTicksY: duracoesDoEixo,
          passosY: PASSOS_DURACAO,
          // Before the first restock the window's intervals are empty: drawn from there on.
          aparar: 6,
        };
      }}
    />
  );
}

export function GraficoDemanda() {
  const q = useQuery({
    queryKey: ['painel', 'graficos', 'demanda'],
    queryFn: demandaPorIdade,
    refetchInterval: ATUALIZACAO_MS,
  });
  return (
    <PainelGrafico
      consulta={q}
      oque="a idade da demanda"
      graficos={(faixas) => {
        const total = faixas.reduce((n, f) => n + f.demandas, 0);
        return {
          id: 'grafico-demanda',
          titulo: 'Demanda reprimida por idade',
          descricao:
            total === 0
              ? 'Nenhuma demanda esperando lote.'
              : `${contagem(total, 'demanda esperando', 'demandas esperando')} lote, por tempo de espera.`,
          nomeX: 'Espera',
          rotulosX: faixas.map((f) => f.faixa),
          series: seriesDe(faixas, [
            {
              rotulo: 'Demandas',
              cor: '--color-danger',
              forma: 'barras',
              valor: (f) => f.demandas,
            },
            {
              // Units are another measure than demands: their own axis (issue 39).
              rotulo: 'Unidades',
              cor: '--color-brand-2',
              forma: 'pontos',
              eixo: 'direita',
              valor: (f) => f.unidades,
            },
          ]),
          formatarY: formatarInteiro,
        };
      }}
    />
  );
}

export function Graficos({ eventos }: { eventos: ApiEventos }) {
  return (
    <SecaoGraficos resumo="Reposições, demanda e eventos.">
      <GraficoLatencia />
      <GraficoDemanda />
      <GraficoEventos api={eventos} chave="painel" />
    </SecaoGraficos>
  );
}
