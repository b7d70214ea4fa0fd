// Events sent and dead-lettered per minute (issue 26), from the event console's
// `/operacao/outbox/serie`: one component for both services' operator pages.
import { useQuery } from '@tanstack/react-query';
import { type ApiEventos } from './eventos';
import { contagem, formatarInteiro, hhmm } from './formato';
import { PainelGrafico, seriesDe } from './PainelGrafico';

/** The chart's window: the last hour, a point a minute. */
export const MINUTOS_SERIE = 60;

export function GraficoEventos({ api, chave }: { api: ApiEventos; chave: string }) {
  const q = useQuery({
    queryKey: [chave, 'eventos', 'serie', MINUTOS_SERIE],
    queryFn: () => api.serie(MINUTOS_SERIE),
    refetchInterval: 10_000,
  });
  return (
    <PainelGrafico
      consulta={q}
      oque="os eventos por minuto"
      graficos={({ pontos }) => ({
        id: 'grafico-eventos',
        titulo: 'Eventos por minuto',
        descricao: `Entregues e que falharam de vez, na última hora (${contagem(
          pontos.reduce((n, p) => n + p.enviados, 0),
          'entregue',
          'entregues',
        )}, ${contagem(
          pontos.reduce((n, p) => n + p.falhos, 0),
          'falhou',
          'falharam',
        )}).`,
        nomeX: 'Minuto',
        rotulosX: pontos.map((p) => hhmm(p.minuto)),
        series: seriesDe(pontos, [
          { rotulo: 'Enviados', cor: '--color-success', forma: 'barras', valor: (p) => p.enviados },
          { rotulo: 'Falharam', cor: '--color-danger', forma: 'barras', valor: (p) => p.falhos },
        ]),
        formatarY: formatarInteiro,
      })}
    />
  );
}
