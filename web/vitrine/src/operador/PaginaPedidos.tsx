// The shop owner's orders (issue 26): a page at a time, newest first, filtered by status and by
// a period of local dates (turned into instants here, so a day is the owner's day) or found by
// number (issue 39), and one order with its items and their totals, reservations, payment and
// expiry, and the cancel of an unpaid one (issue 39).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { dataHora, formatarDinheiro, formatarNumero } from '../../../shared/formato';
import { CampoFiltro } from '../../../shared/Filtro';
import { ErroCarregamento } from '../../../shared/Operador';
import { Tabela } from '../../../shared/Tabela';
import {
  cancelarPedido,
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

/** An order number as people type it (`1001`, `#1001`, `nº 1001`); `undefined` if it is not one. */
export function numeroDigitado(texto: string): number | undefined {
  const m = /^\s*(?:n[º°o.]?\s*|#\s*)?(\d{1,9})\s*$/i.exec(texto);
  const n = m ? Number(m[1]) : 0;
  return n >= 1 ? n : undefined;
}

/** `qtd × preço` in cents, so R$ 8,99 × 3 is R$ 26,97 and not 26.970000000000002. */
export const totalDaLinha = (qtd: number, preco: number) => (qtd * Math.round(preco * 100)) / 100;

export function PaginaPedidos() {
  const [params, setParams] = useSearchParams();
  const status = (params.get('status') as StatusPedido | null) ?? undefined;
  const de = params.get('de') ?? '';
  const ate = params.get('ate') ?? '';
  const pagina = Math.max(1, Number(params.get('pagina') ?? '1') || 1);
  const numero = numeroDigitado(params.get('numero') ?? '');
  const [digitado, setDigitado] = useState(numero ? String(numero) : '');
  const [numeroErrado, setNumeroErrado] = useState(false);
  const filtro = {
    numero,
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
  function buscar(e: FormEvent) {
    e.preventDefault();
    const n = numeroDigitado(digitado);
    setNumeroErrado(digitado.trim() !== '' && n === undefined);
    if (n !== undefined || digitado.trim() === '') mudar('numero', n ? String(n) : '');
  }

  return (
    <section id="pedidos" className="cartao secao" aria-labelledby="titulo-pedidos">
      <h2 id="titulo-pedidos" className="t-title">
        Pedidos
      </h2>
      <form className="busca-pedido" role="search" noValidate onSubmit={buscar}>
        <div className="campo">
          <label htmlFor="busca-numero">Número do pedido</label>
          <input
            id="busca-numero"
            inputMode="numeric"
            autoComplete="off"
            placeholder="ex.: 1001"
            value={digitado}
            aria-invalid={numeroErrado}
            aria-describedby={numeroErrado ? 'busca-numero-erro' : undefined}
            onChange={(e) => setDigitado(e.target.value)}
          />
        </div>
        <button type="submit" className="btn btn-contorno">
          Buscar
        </button>
        {numero !== undefined && (
          <button
            type="button"
            className="btn btn-link"
            onClick={() => {
              setDigitado('');
              setNumeroErrado(false);
              mudar('numero', '');
            }}
          >
            Ver todos
          </button>
        )}
        {numeroErrado && (
          <p id="busca-numero-erro" className="ajuda ajuda-erro" role="alert">
            Digite só o número do pedido, como 1001.
          </p>
        )}
      </form>
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
          {numero !== undefined
            ? `Nenhum pedido nº ${numero}${status || de || ate ? ' com esse filtro' : ''}. Confira o número.`
            : status || de || ate
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

/** The units an order holds on the shelf (its active reservations). */
const reservadas = (p: PedidoOperador) =>
  p.reservas.filter((r) => r.status === 'ATIVA').reduce((n, r) => n + r.qtd, 0);

const unidades = (n: number) => (n === 1 ? '1 unidade' : `${formatarNumero(n)} unidades`);

function DetalhePedido({ p }: { p: PedidoOperador }) {
  const cliente = useQueryClient();
  const [confirmando, setConfirmando] = useState(false);
  const [aviso, setAviso] = useState<{ tipo: 'ok' | 'erro'; texto: string } | null>(null);
  const cancelar = useMutation({
    mutationFn: () => cancelarPedido(p.id),
    onSuccess: (novo) => {
      const devolvidas = reservadas(p);
      cliente.setQueryData(['operador', 'pedido', p.id], novo);
      void cliente.invalidateQueries({ queryKey: ['operador', 'pedidos'] });
      setAviso({
        tipo: 'ok',
        texto: `Pedido nº ${novo.numero} cancelado: ${unidades(devolvidas)} ${devolvidas === 1 ? 'voltou' : 'voltaram'} para a vitrine.`,
      });
    },
    // Paid or expired meanwhile: say why, and show the order as it is now.
    onError: (e) => {
      setAviso({
        tipo: 'erro',
        texto:
          (e instanceof ErroApi && e.detalhe) ||
          'Não foi possível cancelar o pedido. Tente de novo.',
      });
      void cliente.invalidateQueries({ queryKey: ['operador', 'pedido', p.id] });
    },
    onSettled: () => setConfirmando(false),
  });
  const aguardando = p.status === 'AGUARDANDO_PAGAMENTO';
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
        {aguardando && !confirmando && (
          <button
            type="button"
            className="btn btn-contorno"
            onClick={() => {
              setAviso(null);
              setConfirmando(true);
            }}
          >
            Cancelar pedido
          </button>
        )}
      </div>
      {aguardando && confirmando && (
        <div className="confirmacao" role="group" aria-label="Confirmar cancelamento">
          <p>
            Cancelar o pedido nº {p.numero}? {unidades(reservadas(p))} reservadas{' '}
            {reservadas(p) === 1 ? 'volta' : 'voltam'} para a vitrine, e ele não poderá mais ser
            pago.
          </p>
          <button
            type="button"
            className="btn btn-perigo"
            disabled={cancelar.isPending}
            onClick={() => cancelar.mutate()}
          >
            {cancelar.isPending ? 'Cancelando…' : 'Confirmar cancelamento'}
          </button>
          <button type="button" className="btn btn-link" onClick={() => setConfirmando(false)}>
            Voltar
          </button>
        </div>
      )}
      {aviso && (
        <p
          className={`aviso aviso-${aviso.tipo}`}
          role={aviso.tipo === 'erro' ? 'alert' : 'status'}
        >
          {aviso.texto}
        </p>
      )}
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
        {aguardando && p.reservaExpiraEm && (
          <div>
            <dt>Reserva expira</dt>
            <dd>{dataHora(p.reservaExpiraEm)}</dd>
          </div>
        )}
        <div>
          <dt>Identificador</dt>
          <dd className="mono t-small">{p.id}</dd>
        </div>
      </dl>
      <h3 className="t-label">Itens</h3>
      <Tabela
        className="tabela-cartoes"
        colunas={[
          'SKU',
          'Produto',
          { num: 'Qtd.' },
          { num: 'Preço unitário' },
          { num: 'Total da linha' },
        ]}
      >
        {p.itens.map((i) => (
          <tr key={i.sku} data-sku={i.sku}>
            <td className="mono" data-rotulo="SKU">
              {i.sku}
            </td>
            <td data-rotulo="Produto">{i.nome}</td>
            <td className="num" data-rotulo="Qtd.">
              {formatarNumero(i.qtd)}
            </td>
            <td className="num mono" data-rotulo="Preço unitário">
              {formatarDinheiro(i.precoUnitario)}
            </td>
            <td className="num mono" data-rotulo="Total da linha">
              {formatarDinheiro(totalDaLinha(i.qtd, i.precoUnitario))}
            </td>
          </tr>
        ))}
      </Tabela>
      <h3 className="t-label">Reservas</h3>
      <ul className="lista-reservas" aria-label="Reservas">
        {p.reservas.map((r) => (
          <li key={r.sku}>
            <span className="mono">{r.sku}</span> · {formatarNumero(r.qtd)} un. ·{' '}
            {/* The deadline matters only while the units are held (issue 39). */}
            {r.status === 'ATIVA'
              ? `Ativa · prazo ${dataHora(r.expiraEm)}`
              : p.status === 'CANCELADO'
                ? 'Liberada no cancelamento'
                : ROTULOS_RESERVA[r.status]}
          </li>
        ))}
      </ul>
    </section>
  );
}
