// The operator home's charts (issue 26): orders and revenue per hour, the products that ran out
// most (restock requests per product: mercado records each time a shelf falls below its
// minimum, not the moment it empties) and shelf against minimum and ideal — here and not in
// the warehouse's dashboard, because mercado owns the minimum and the ideal.
import { useQuery } from '@tanstack/react-query';
import { contagem, formatarDinheiro, formatarInteiro, hhmm } from '../../../shared/formato';
import { PainelGrafico, SecaoGraficos, seriesDe } from '../../../shared/PainelGrafico';
import { esgotados, prateleira, vendas } from './graficos';

/** The window of the sales and sell-out charts. */
export const HORAS_GRAFICOS = 24;
const ATUALIZACAO_MS = 15_000;
/** The hours drawn at least: before the first hour with a sale, a fresh shop's chart is empty. */
const HORAS_DESENHADAS = 6;

export function GraficoVendas() {
  const q = useQuery({
    queryKey: ['operador', 'graficos', 'vendas', HORAS_GRAFICOS],
    queryFn: () => vendas(HORAS_GRAFICOS),
    refetchInterval: ATUALIZACAO_MS,
  });
  return (
    <PainelGrafico
      consulta={q}
      oque="as vendas por hora"
      graficos={({ horas, pontos }) => {
        const pedidos = pontos.reduce((n, p) => n + p.pedidos, 0);
        const receita = pontos.reduce((n, p) => n + p.receita, 0);
        const rotulosX = pontos.map((p) => hhmm(p.hora));
        return [
          {
            id: 'grafico-pedidos',
            titulo: 'Pedidos por hora',
            descricao: `Pedidos feitos e pagos nas últimas ${horas} h: ${contagem(pedidos, 'pedido', 'pedidos')}.`,
            nomeX: 'Hora',
            rotulosX,
            series: seriesDe(pontos, [
              { rotulo: 'Pedidos', cor: '--color-info', forma: 'barras', valor: (p) => p.pedidos },
              { rotulo: 'Pagos', cor: '--color-success', valor: (p) => p.pagos },
            ]),
            formatarY: formatarInteiro,
            aparar: HORAS_DESENHADAS,
          },
          {
            id: 'grafico-receita',
            titulo: 'Receita por hora',
            descricao: `Total dos pedidos pagos nas últimas ${horas} h: ${formatarDinheiro(receita)}.`,
            nomeX: 'Hora',
            rotulosX,
            series: seriesDe(pontos, [
              { rotulo: 'Receita', cor: '--color-brand', forma: 'barras', valor: (p) => p.receita },
            ]),
            formatarY: formatarDinheiro,
            aparar: HORAS_DESENHADAS,
          },
        ];
      }}
    />
  );
}

export function GraficoEsgotados() {
  const q = useQuery({
    queryKey: ['operador', 'graficos', 'esgotados', HORAS_GRAFICOS],
    queryFn: () => esgotados(HORAS_GRAFICOS),
    refetchInterval: ATUALIZACAO_MS,
  });
  return (
    <PainelGrafico
      consulta={q}
      oque="os produtos que mais esgotam"
      graficos={({ horas, produtos: ps }) => ({
        id: 'grafico-esgotados',
        titulo: 'Os que mais esgotam',
        descricao:
          ps.length === 0
            ? `Nenhum produto pediu reposição nas últimas ${horas} h.`
            : `Pedidos de reposição por produto nas últimas ${horas} h (cada um: a prateleira ficou abaixo do mínimo).`,
        nomeX: 'Produto',
        rotulosX: ps.map((p) => (p.status === 'ESGOTADO' ? `${p.nome} (esgotado)` : p.nome)),
        series: seriesDe(ps, [
          {
            rotulo: 'Reposições',
            cor: '--color-danger',
            forma: 'barras',
            valor: (p) => p.reposicoes,
          },
        ]),
        formatarY: formatarInteiro,
      })}
    />
  );
}

export function GraficoPrateleira() {
  const q = useQuery({
    queryKey: ['operador', 'graficos', 'prateleira'],
    queryFn: prateleira,
    refetchInterval: ATUALIZACAO_MS,
  });
  return (
    <PainelGrafico
      consulta={q}
      oque="a prateleira"
      graficos={(ps) => ({
        id: 'grafico-prateleira',
        titulo: 'Prateleira, mínimo e ideal',
        descricao:
          ps.length === 0
            ? 'Nenhum produto cadastrado.'
            : 'Os produtos mais perto de esvaziar primeiro: a barra é a prateleira, os pontos o mínimo e o ideal.',
        nomeX: 'Produto',
        rotulosX: ps.map((p) => p.nome),
        series: seriesDe(ps, [
          {
            rotulo: 'Prateleira',
            cor: '--color-brand',
            forma: 'barras',
            valor: (p) => p.prateleira,
          },
          {
            rotulo: 'Mínimo',
            cor: '--color-danger',
            forma: 'pontos',
            valor: (p) => p.estoqueMinimo,
          },
          {
            rotulo: 'Ideal',
            cor: '--color-success',
            forma: 'pontos',
            valor: (p) => p.estoqueIdeal,
          },
        ]),
        formatarY: formatarInteiro,
      })}
    />
  );
}

export function GraficosOperador() {
  return (
    <SecaoGraficos resumo="Vendas, esgotamentos e prateleira.">
      <GraficoVendas />
      <GraficoEsgotados />
      <GraficoPrateleira />
    </SecaoGraficos>
  );
}
