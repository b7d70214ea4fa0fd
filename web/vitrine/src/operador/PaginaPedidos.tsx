// The shop owner's orders (issue 26): a page at a time, newest first, filtered by status and by
// a period of local dates (turned into instants here, so a day is the owner's day), and one order
// with its items, reservations, payment and expiry.
import { useQuery } from '@tanstack/react-query';
import { Link, useParams, useSearchParams } from 'react-router';
import { dataHora, formatarDinheiro, formatarNumero } from '../../../shared/formato';
import { CampoFiltro } from '../../../shared/Filtro';
import { ErroCarregamento } from '../../../shared/Operador';
import { Tabela } from '../../../shared/Tabela';
import {
  ErroApi,
  listarPedidos,
  pedidoOperador,
  servico,
  type PedidoOperador,
  type StatusPedido,
} from './api';

export const ROTULOS_STATUS: Record<StatusPedido, string> = {
  AGUARDANDO_PAGAMENTO: 'Aguardando pagamento',
  PAGO: 'Pago',
  CANCELADO: 'Cancelado',
  EXPIRADO: 'Expirado',
};

const CLASSES_STATUS: Record<StatusPedido, string> = {
  AGUARDANDO_PAGAMENTO: 'selo selo-info',
  PAGO: 'selo selo-ok',
  CANCELADO: 'selo selo-esgotado',
  EXPIRADO: 'selo selo-esgotado',
};

function SeloStatus({ status }: { status: StatusPedido }) {
  return <span className={CLASSES_STATUS[status]}>{ROTULOS_STATUS[status]}</span>;
}

/** `2026-12-04` (a date input's value) at local midnight, as an instant; `dias` later. */
export function inicioDoDia(data: string, dias = 0): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(data);
  if (!m) return undefined;
  return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + dias).toISOString();
}

const STATUS: StatusPedido[] = ['AGUARDANDO_PAGAMENTO', 'PAGO', 'EXPIRADO', 'CANCELADO'];

export function PaginaPedidos() {
  const [params, setParams] = useSearchParams();
  const status = (params.get('status') as StatusPedido | null) ?? undefined;
  const de = params.get('de') ?? '';
  const ate = params.get('ate') ?? '';
  const pagina = Math.max(1, Number(params.get('pagina') ?? '1') || 1);
  const filtro = {
    status,
    de: inicioDoDia(de),
    // "até 04/12" includes the whole day: the API's `ate` is exclusive.
    ate: inicioDoDia(ate, 1),
    pagina,
  };
  const q = useQuery({
    queryKey: ['operador', 'pedidos', filtro],
    queryFn: () => listarPedidos(filtro),
  });

  function mudar(chave: string, valor: string) {
    const novo = new URLSearchParams(params);
    if (valor) novo.set(chave, valor);
    else novo.delete(chave);
    novo.delete('pagina');
    setParams(novo);
  }
  const irPara = (n: number) => {
    const novo = new URLSearchParams(params);
    novo.set('pagina', String(n));
    return `?${novo.toString()}`;
  };
  const paginas = q.data ? Math.max(1, Math.ceil(q.data.total / q.data.tamanho)) : 1;

  return (
    <section id="pedidos" className="cartao secao" aria-labelledby="titulo-pedidos">
      <h2 id="titulo-pedidos" className="t-title">
        Pedidos
      </h2>
      <form className="filtros-pedidos" onSubmit={(e) => e.preventDefault()}>
        <CampoFiltro
          id="filtro-status"
          rotulo="Status"
          todos="Todos"
          valor={status ?? ''}
          opcoes={STATUS}
          rotuloDe={(s) => ROTULOS_STATUS[s]}
          aoMudar={(v) => mudar('status', v)}
        />
        <div className="campo">
          <label htmlFor="filtro-de">De</label>
          <input
            id="filtro-de"
            type="date"
            value={de}
            onChange={(e) => mudar('de', e.target.value)}
          />
        </div>
        <div className="campo">
          <label htmlFor="filtro-ate">Até</label>
          <input
            id="filtro-ate"
            type="date"
            value={ate}
            onChange={(e) => mudar('ate', e.target.value)}
          />
        </div>
      </form>
      {q.isError && !q.data ? (
        q.error instanceof ErroApi && q.error.status === 400 ? (
          <p className="aviso aviso-erro" role="alert">
            {q.error.detalhe ?? 'Filtro inválido.'} Ajuste o filtro e tente de novo.
          </p>
        ) : (
          <ErroCarregamento servico={servico} erro={q.error} aoTentar={() => q.refetch()} />
        )
      ) : !q.data ? (
        <p className="muted">Carregando…</p>
      ) : q.data.itens.length === 0 ? (
        <p className="muted vazio">
          {status || de || ate
            ? 'Nenhum pedido com esse filtro. Mude o status ou o período.'
            : 'Nenhum pedido ainda. Os pedidos da vitrine aparecem aqui.'}
        </p>
      ) : (
        <>
          <p className="t-small muted" aria-live="polite">
            {q.data.total === 1 ? '1 pedido' : `${formatarNumero(q.data.total)} pedidos`}
          </p>
          <Tabela
            className="tabela-cartoes"
            colunas={['Nº', 'Status', { num: 'Total' }, 'Data', { num: 'Itens' }]}
          >
            {q.data.itens.map((p) => (
              <tr key={p.id} data-numero={p.numero}>
                <td className="mono" data-rotulo="Nº">
                  <Link to={`/pedidos/${p.id}`}>nº {p.numero}</Link>
                </td>
                <td data-rotulo="Status">
                  <SeloStatus status={p.status} />
                </td>
                <td className="num mono" data-rotulo="Total">
                  {formatarDinheiro(p.total)}
                </td>
                <td data-rotulo="Data">{dataHora(p.criadoEm)}</td>
                <td className="num" data-rotulo="Itens">
                  {p.unidades === 1 ? '1 unidade' : `${formatarNumero(p.unidades)} unidades`}
                </td>
              </tr>
            ))}
          </Tabela>
          {paginas > 1 && (
            <nav className="paginacao" aria-label="Páginas de pedidos">
              <Link to={irPara(pagina - 1)} aria-disabled={pagina <= 1}>
                Anterior
              </Link>
              <span className="t-small">
                Página {pagina} de {paginas}
              </span>
              <Link to={irPara(pagina + 1)} aria-disabled={pagina >= paginas}>
                Próxima
              </Link>
            </nav>
          )}
        </>
      )}
    </section>
  );
}

const ROTULOS_RESERVA = { ATIVA: 'Ativa', CONFIRMADA: 'Confirmada', EXPIRADA: 'Expirada' };

export function PaginaPedidoOperador() {
  const { id = '' } = useParams();
  const q = useQuery({
    queryKey: ['operador', 'pedido', id],
    queryFn: () => pedidoOperador(id),
    retry: false,
  });
  if (q.isError) {
    if (q.error instanceof ErroApi && (q.error.status === 404 || q.error.status === 400))
      return (
        <section className="cartao secao">
          <p className="aviso aviso-erro" role="alert">
            Pedido não encontrado. <Link to="/pedidos">Voltar aos pedidos</Link>.
          </p>
        </section>
      );
    return <ErroCarregamento servico={servico} erro={q.error} aoTentar={() => q.refetch()} />;
  }
  if (!q.data) return <p className="muted">Carregando…</p>;
  return <DetalhePedido p={q.data} />;
}

function DetalhePedido({ p }: { p: PedidoOperador }) {
  return (
    <section className="cartao secao" aria-labelledby="titulo-pedido">
      <p className="t-small">
        <Link to="/pedidos">← Pedidos</Link>
      </p>
      <div className="secao-cabecalho">
        <h2 id="titulo-pedido" className="t-title">
          Pedido nº {p.numero}
        </h2>
        <SeloStatus status={p.status} />
      </div>
      <dl className="dados-pedido">
        <div>
          <dt>Feito em</dt>
          <dd>{dataHora(p.criadoEm)}</dd>
        </div>
        <div>
          <dt>Total</dt>
          <dd className="mono">{formatarDinheiro(p.total)}</dd>
        </div>
        <div>
          <dt>Pagamento</dt>
          <dd>
            {p.pagamento
              ? p.pagamento.pagoEm
                ? `Pago em ${dataHora(p.pagamento.pagoEm)}`
                : 'Pago'
              : 'Não pago'}
          </dd>
        </div>
        <div>
          <dt>Reserva expira</dt>
          <dd>{p.reservaExpiraEm ? dataHora(p.reservaExpiraEm) : '—'}</dd>
        </div>
        <div>
          <dt>Identificador</dt>
          <dd className="mono t-small">{p.id}</dd>
        </div>
      </dl>
      <h3 className="t-label">Itens</h3>
      <Tabela colunas={['SKU', 'Produto', { num: 'Qtd.' }, { num: 'Preço unitário' }]}>
        {p.itens.map((i) => (
          <tr key={i.sku}>
            <td className="mono">{i.sku}</td>
            <td>{i.nome}</td>
            <td className="num">{formatarNumero(i.qtd)}</td>
            <td className="num mono">{formatarDinheiro(i.precoUnitario)}</td>
          </tr>
        ))}
      </Tabela>
      <h3 className="t-label">Reservas</h3>
      <ul className="lista-reservas" aria-label="Reservas">
        {p.reservas.map((r) => (
          <li key={r.sku}>
            <span className="mono">{r.sku}</span> · {formatarNumero(r.qtd)} un. ·{' '}
            {ROTULOS_RESERVA[r.status]} · prazo {dataHora(r.expiraEm)}
          </li>
        ))}
      </ul>
    </section>
  );
}
