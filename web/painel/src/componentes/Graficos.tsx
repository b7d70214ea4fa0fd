// The dashboard's charts (issue 26): restock latency, waiting demand by age and events per
// minute. Stock against the market's minimum and ideal is on mercado's operator home: estoque
// never learns those thresholds (see src/estoque/painel.rs).
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Grafico } from '../../../shared/Grafico';
import { GraficoEventos } from '../../../shared/GraficoEventos';
import { type ApiEventos } from '../../../shared/eventos';
import { contagem } from '../../../shared/formato';
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

function rotuloIntervalo(inicio: string, l: Latencia): string {
  const d = new Date(inicio);
  const hm = d.toLocaleTimeString('pt-BR', { hour: '2-digit', minute: '2-digit' });
  return l.horas > 24
    ? `${d.toLocaleDateString('pt-BR', { day: '2-digit', month: '2-digit' })} ${hm}`
    : hm;
}

function Erro({ oque }: { oque: string }) {
  return (
    <p className="aviso aviso-erro" role="alert">
      Não foi possível carregar {oque}. A página tenta de novo sozinha.
    </p>
  );
}

export function GraficoLatencia() {
  const [horas, setHoras] = useState<number>(24);
  const q = useQuery({
    queryKey: ['painel', 'graficos', 'latencia', horas],
    queryFn: () => latenciaReposicao(horas),
    refetchInterval: ATUALIZACAO_MS * 5,
  });
  const l = q.data;
  const total = l?.pontos.reduce((n, p) => n + p.reposicoes, 0) ?? 0;
  return (
    <div className="grafico-bloco">
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
      {q.isError && !l ? (
        <Erro oque="a latência das reposições" />
      ) : !l ? (
        <p className="muted">Carregando…</p>
      ) : (
        <Grafico
          id="grafico-latencia"
          titulo="Latência das reposições"
          descricao={
            total === 0
              ? `Nenhuma reposição nas últimas ${l.horas} h.`
              : `Do pedido à expedição e do pedido ao crédito na prateleira do mercado, p50 e p99 por intervalo de ${duracao(l.intervaloSegundos)}; ${contagem(total, 'reposição', 'reposições')} nas últimas ${l.horas} h.`
          }
          nomeX="Intervalo"
          rotulosX={l.pontos.map((p) => rotuloIntervalo(p.inicio, l))}
          series={[
            {
              rotulo: 'Expedição p50',
              valores: l.pontos.map((p) => p.expedicao.p50),
              cor: '--color-info',
            },
            {
              rotulo: 'Expedição p99',
              valores: l.pontos.map((p) => p.expedicao.p99),
              cor: '--color-brand-2',
            },
            {
              rotulo: 'Prateleira p50',
              valores: l.pontos.map((p) => p.credito.p50),
              cor: '--color-success',
            },
            {
              rotulo: 'Prateleira p99',
              valores: l.pontos.map((p) => p.credito.p99),
              cor: '--color-accent',
            },
          ]}
          formatarY={duracao}
        />
      )}
    </div>
  );
}

export function GraficoDemanda() {
  const q = useQuery({
    queryKey: ['painel', 'graficos', 'demanda'],
    queryFn: demandaPorIdade,
    refetchInterval: ATUALIZACAO_MS,
  });
  if (q.isError && !q.data) return <Erro oque="a idade da demanda" />;
  if (!q.data) return <p className="muted">Carregando…</p>;
  const faixas = q.data;
  const total = faixas.reduce((n, f) => n + f.demandas, 0);
  return (
    <Grafico
      id="grafico-demanda"
      titulo="Demanda reprimida por idade"
      descricao={
        total === 0
          ? 'Nenhuma demanda esperando lote.'
          : `${contagem(total, 'demanda esperando', 'demandas esperando')} lote, por tempo de espera.`
      }
      nomeX="Espera"
      rotulosX={faixas.map((f) => f.faixa)}
      series={[
        {
          rotulo: 'Demandas',
          valores: faixas.map((f) => f.demandas),
          cor: '--color-danger',
          forma: 'barras',
        },
        {
          rotulo: 'Unidades',
          valores: faixas.map((f) => f.unidades),
          cor: '--color-brand-2',
          forma: 'pontos',
        },
      ]}
      formatarY={(v) => v.toLocaleString('pt-BR', { maximumFractionDigits: 0 })}
    />
  );
}

export function Graficos({ eventos }: { eventos: ApiEventos }) {
  return (
    <section id="graficos" className="cartao secao" aria-labelledby="titulo-graficos">
      <div className="secao-cabecalho">
        <h2 id="titulo-graficos" className="t-title">
          Gráficos
        </h2>
        <p className="t-small muted subtitulo">
          Reposições, demanda e eventos. Os números de cada gráfico estão numa tabela para leitores
          de tela.
        </p>
      </div>
      <div className="graficos">
        <GraficoLatencia />
        <GraficoDemanda />
        <GraficoEventos api={eventos} chave="painel" />
      </div>
    </section>
  );
}
