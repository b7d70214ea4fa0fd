// Events sent and dead-lettered per minute (issue 26), from the event console's
// `/operacao/outbox/serie`: one component for both services' operator pages.
import { useQuery } from '@tanstack/react-query';
import { type ApiEventos } from './eventos';
import { contagem } from './formato';
import { Grafico } from './Grafico';

/** The chart's window: the last hour, a point a minute. */
export const MINUTOS_SERIE = 60;

const hhmm = (iso: string) =>
  new Date(iso).toLocaleTimeString('pt-BR', { hour: '2-digit', minute: '2-digit' });

export function GraficoEventos({ api, chave }: { api: ApiEventos; chave: string }) {
  const q = useQuery({
    queryKey: [chave, 'eventos', 'serie', MINUTOS_SERIE],
    queryFn: () => api.serie(MINUTOS_SERIE),
    refetchInterval: 10_000,
  });
  if (q.isError && !q.data)
    return (
      <p className="aviso aviso-erro" role="alert">
        Não foi possível carregar os eventos por minuto. A página tenta de novo sozinha.
      </p>
    );
  if (!q.data) return <p className="muted">Carregando…</p>;
  const pontos = q.data.pontos;
  return (
    <Grafico
      id="grafico-eventos"
      titulo="Eventos por minuto"
      descricao={`Entregues e que falharam de vez, na última hora (${contagem(
        pontos.reduce((n, p) => n + p.enviados, 0),
        'entregue',
        'entregues',
      )}, ${contagem(
        pontos.reduce((n, p) => n + p.falhos, 0),
        'falhou',
        'falharam',
      )}).`}
      nomeX="Minuto"
      rotulosX={pontos.map((p) => hhmm(p.minuto))}
      series={[
        {
          rotulo: 'Enviados',
          valores: pontos.map((p) => p.enviados),
          cor: '--color-success',
          forma: 'barras',
        },
        {
          rotulo: 'Falharam',
          valores: pontos.map((p) => p.falhos),
          cor: '--color-danger',
          forma: 'barras',
        },
      ]}
      formatarY={(v) => v.toLocaleString('pt-BR', { maximumFractionDigits: 0 })}
    />
  );
}
