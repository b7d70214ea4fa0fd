// The operator home's charts (issue 26): orders and revenue per hour, the products that ran out
// most (restock requests per product: mercado records each time a shelf falls below its
// minimum, not the moment it empties) and shelf against minimum and ideal — here and not in
// the warehouse's dashboard, because mercado owns the minimum and the ideal.
import { useQuery } from '@tanstack/react-query';
import { Grafico } from '../../../shared/Grafico';
import { contagem, formatarDinheiro } from '../../../shared/formato';
import { esgotados, prateleira, vendas } from './graficos';

/** The window of the sales and sell-out charts. */
export const HORAS_GRAFICOS = 24;
const ATUALIZACAO_MS = 15_000;

const inteiro = (v: number) => v.toLocaleString('pt-BR', { maximumFractionDigits: 0 });

function Erro({ oque }: { oque: string }) {
  return (
    <p className="aviso aviso-erro" role="alert">
      Não foi possível carregar {oque}. A página tenta de novo sozinha.
    </p>
  );
}

export function GraficoVendas() {
  const q = useQuery({
    queryKey: ['operador', 'graficos', 'vendas', HORAS_GRAFICOS],
    queryFn: () => vendas(HORAS_GRAFICOS),
    refetchInterval: ATUALIZACAO_MS,
  });
  if (q.isError && !q.data) return <Erro oque="as vendas por hora" />;
  if (!q.data) return <p className="muted">Carregando…</p>;
  const pontos = q.data.pontos;
  const pedidos = pontos.reduce((n, p) => n + p.pedidos, 0);
  const receita = pontos.reduce((n, p) => n + p.receita, 0);
  return (
    <>
      <Grafico
        id="grafico-pedidos"
        titulo="Pedidos por hora"
        descricao={`Pedidos feitos e pagos nas últimas ${q.data.horas} h: ${contagem(pedidos, 'pedido', 'pedidos')}.`}
        nomeX="Hora"
        rotulosX={pontos.map((p) =>
          new Date(p.hora).toLocaleTimeString('pt-BR', { hour: '2-digit', minute: '2-digit' }),
        )}
        series={[
          {
            rotulo: 'Pedidos',
            valores: pontos.map((p) => p.pedidos),
            cor: '--color-info',
            forma: 'barras',
          },
          { rotulo: 'Pagos', valores: pontos.map((p) => p.pagos), cor: '--color-success' },
        ]}
        formatarY={inteiro}
      />
      <Grafico
        id="grafico-receita"
        titulo="Receita por hora"
        descricao={`Total dos pedidos pagos nas últimas ${q.data.horas} h: ${formatarDinheiro(receita)}.`}
        nomeX="Hora"
        rotulosX={pontos.map((p) =>
          new Date(p.hora).toLocaleTimeString('pt-BR', { hour: '2-digit', minute: '2-digit' }),
        )}
        series={[
          {
            rotulo: 'Receita',
            valores: pontos.map((p) => p.receita),
            cor: '--color-brand',
            forma: 'barras',
          },
        ]}
        formatarY={formatarDinheiro}
      />
    </>
  );
}

export function GraficoEsgotados() {
  const q = useQuery({
    queryKey: ['operador', 'graficos', 'esgotados', HORAS_GRAFICOS],
    queryFn: () => esgotados(HORAS_GRAFICOS),
    refetchInterval: ATUALIZACAO_MS,
  });
  if (q.isError && !q.data) return <Erro oque="os produtos que mais esgotam" />;
  if (!q.data) return <p className="muted">Carregando…</p>;
  const ps = q.data.produtos;
  return (
    <Grafico
      id="grafico-esgotados"
      titulo="Os que mais esgotam"
      descricao={
        ps.length === 0
          ? `Nenhum produto pediu reposição nas últimas ${q.data.horas} h.`
          : `Pedidos de reposição por produto nas últimas ${q.data.horas} h (cada um: a prateleira ficou abaixo do mínimo).`
      }
      nomeX="Produto"
      rotulosX={ps.map((p) => (p.status === 'ESGOTADO' ? `${p.nome} (esgotado)` : p.nome))}
      series={[
        {
          rotulo: 'Reposições',
          valores: ps.map((p) => p.reposicoes),
          cor: '--color-danger',
          forma: 'barras',
        },
      ]}
      formatarY={inteiro}
    />
  );
}

export function GraficoPrateleira() {
  const q = useQuery({
    queryKey: ['operador', 'graficos', 'prateleira'],
    queryFn: prateleira,
    refetchInterval: ATUALIZACAO_MS,
  });
  if (q.isError && !q.data) return <Erro oque="a prateleira" />;
  if (!q.data) return <p className="muted">Carregando…</p>;
  const ps = q.data;
  return (
    <Grafico
      id="grafico-prateleira"
      titulo="Prateleira, mínimo e ideal"
      descricao={
        ps.length === 0
          ? 'Nenhum produto cadastrado.'
          : 'Os produtos mais perto de esvaziar primeiro: a barra é a prateleira, os pontos o mínimo e o ideal.'
      }
      nomeX="Produto"
      rotulosX={ps.map((p) => p.nome)}
      series={[
        {
          rotulo: 'Prateleira',
          valores: ps.map((p) => p.prateleira),
          cor: '--color-brand',
          forma: 'barras',
        },
        {
          rotulo: 'Mínimo',
          valores: ps.map((p) => p.estoqueMinimo),
          cor: '--color-danger',
          forma: 'pontos',
        },
        {
          rotulo: 'Ideal',
          valores: ps.map((p) => p.estoqueIdeal),
          cor: '--color-success',
          forma: 'pontos',
        },
      ]}
      formatarY={inteiro}
    />
  );
}

export function GraficosOperador() {
  return (
    <section id="graficos" className="cartao secao" aria-labelledby="titulo-graficos">
      <div className="secao-cabecalho">
        <h2 id="titulo-graficos" className="t-title">
          Gráficos
        </h2>
        <p className="t-small muted subtitulo">
          Vendas, esgotamentos e prateleira. Os números de cada gráfico estão numa tabela para
          leitores de tela.
        </p>
      </div>
      <div className="graficos">
        <GraficoVendas />
        <GraficoEsgotados />
        <GraficoPrateleira />
      </div>
    </section>
  );
}
