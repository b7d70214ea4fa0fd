import { useQuery } from '@tanstack/react-query';
import { formatarNumero } from '../../../shared/formato';
import { ErroCarregamento } from '../../../shared/Operador';
import { resumo, servico } from '../api';
import { ATUALIZACAO_MS } from '../consultas';

const CARTOES = [
  { chave: 'skusCadastrados', rotulo: 'SKUs cadastrados' },
  { chave: 'skusSemSaldo', rotulo: 'SKUs sem saldo válido' },
  { chave: 'demandasAbertas', rotulo: 'Demanda reprimida' },
  { chave: 'lotesVencendo', rotulo: 'Lotes vencendo em 30 dias' },
] as const;

export function Kpis() {
  const q = useQuery({
    queryKey: ['painel', 'resumo'],
    queryFn: resumo,
    refetchInterval: ATUALIZACAO_MS,
  });
  if (q.isError && !q.data)
    return <ErroCarregamento servico={servico} erro={q.error} aoTentar={() => q.refetch()} />;
  return (
    <section className="kpis" aria-label="Indicadores">
      {CARTOES.map((c) => (
        <div key={c.chave} className={`cartao kpi kpi-${c.chave}`} data-testid={`kpi-${c.chave}`}>
          <span className="t-small muted kpi-rotulo">{c.rotulo}</span>
          <span className="kpi-valor">{q.data ? formatarNumero(q.data[c.chave]) : '—'}</span>
        </div>
      ))}
    </section>
  );
}
