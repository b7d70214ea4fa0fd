import { useQuery } from '@tanstack/react-query';
import { formatarNumero, quandoCurto, tempoRelativo } from '../../../shared/formato';
import { Carregado } from '../../../shared/Operador';
import { Tabela } from '../../../shared/Tabela';
import { demandas, reposicoes, servico } from '../api';
import { ATUALIZACAO_MS } from '../consultas';
import { pedidosAguardando } from '../mensagens';

export function TabelaDemanda() {
  const q = useQuery({
    queryKey: ['painel', 'demandas'],
    queryFn: demandas,
    refetchInterval: ATUALIZACAO_MS,
  });
  // Ages are measured from the moment the data arrived (read only once there is data).
  const agora = new Date(q.dataUpdatedAt);
  return (
    <section id="demanda-reprimida" className="cartao secao" aria-labelledby="titulo-demanda">
      <div className="secao-cabecalho">
        <h2 id="titulo-demanda" className="t-title">
          Demanda reprimida
        </h2>
        {q.data && q.data.length > 0 && (
          <p className="t-small muted subtitulo">{pedidosAguardando(q.data.length)}</p>
        )}
      </div>
      <Carregado q={q} servico={servico} vazio="Nenhum pedido do mercado esperando saldo.">
        {(lista) => (
          <Tabela className="tabela-cartoes" colunas={['SKU', 'Produto', { num: 'Qtd' }, 'Desde']}>
            {lista.map((d) => (
              <tr key={d.id} data-sku={d.sku}>
                <td className="mono" data-rotulo="SKU">
                  {d.sku}
                </td>
                <td data-rotulo="Produto">{d.descricao}</td>
                <td className="num mono" data-rotulo="Qtd">
                  {formatarNumero(d.qtdSolicitada)}
                </td>
                <td data-rotulo="Desde">
                  <time dateTime={d.registradoEm}>{tempoRelativo(d.registradoEm, agora)}</time>
                </td>
              </tr>
            ))}
          </Tabela>
        )}
      </Carregado>
    </section>
  );
}

export function TabelaReposicoes() {
  const q = useQuery({
    queryKey: ['painel', 'reposicoes'],
    queryFn: reposicoes,
    refetchInterval: ATUALIZACAO_MS,
  });
  return (
    <section id="reposicoes" className="cartao secao" aria-labelledby="titulo-reposicoes">
      <h2 id="titulo-reposicoes" className="t-title">
        Reposições recentes
      </h2>
      <Carregado q={q} servico={servico} vazio="Nenhum lote enviado ao mercado ainda.">
        {(lista) => (
          <Tabela
            className="tabela-cartoes"
            colunas={['Quando', 'SKU', 'Produto', { num: 'Qtd' }, 'Lote', 'Status']}
          >
            {lista.map((r) => (
              <tr key={r.eventId} data-event-id={r.eventId} data-sku={r.sku}>
                <td data-rotulo="Quando">
                  <time dateTime={r.expedidoEm}>{quandoCurto(r.expedidoEm)}</time>
                </td>
                <td className="mono" data-rotulo="SKU">
                  {r.sku}
                </td>
                <td data-rotulo="Produto">{r.descricao}</td>
                <td className="num mono" data-rotulo="Qtd">
                  {formatarNumero(r.qtd)}
                </td>
                <td className="mono" data-rotulo="Lote">
                  {r.codigoLote}
                </td>
                <td data-rotulo="Status">
                  {r.entregueEm ? (
                    <span className="selo selo-ok">entregue</span>
                  ) : (
                    <span className="selo selo-info">enviando</span>
                  )}
                </td>
              </tr>
            ))}
          </Tabela>
        )}
      </Carregado>
    </section>
  );
}
