import { useQuery } from '@tanstack/react-query';
import { formatarNumero } from '../../../shared/formato';
import { ErroCarregamento } from '../../../shared/Operador';
import { resumo, servico } from '../api';
import { ATUALIZACAO_MS } from '../consultas';
import { hrefEstoque } from '../rota';

// Each KPI opens the inventory filtered to the SKUs it counts (SPEC §6.2.1).
const CARTOES = [
  { chave: 'skusCadastrados', rotulo: 'SKUs cadastrados', href: hrefEstoque() },
  {
    chave: 'skusSemSaldo',
    rotulo: 'SKUs sem saldo válido',
    href: hrefEstoque({ estado: 'sem-saldo-valido' }),
  },
  {
    chave: 'demandasAbertas',
    rotulo: 'Demanda reprimida',
    href: hrefEstoque({ estado: 'com-demanda' }),
  },
  {
    chave: 'lotesVencendo',
    rotulo: 'Lotes vencendo em 30 dias',
    href: hrefEstoque({ estado: 'vencendo' }),
  },
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
        <a
          key={c.chave}
          href={c.href}
          className={`cartao kpi kpi-${c.chave}`}
          data-testid={`kpi-${c.chave}`}
        >
          <span className="t-small muted kpi-rotulo">{c.rotulo}</span>
          <span className="kpi-valor">{q.data ? formatarNumero(q.data[c.chave]) : '—'}</span>
        </a>
      ))}
    </section>
  );
}
