import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import {
  centavos,
  dataHora,
  formatarCentavos,
  formatarDinheiro,
  mmss,
} from '../../../shared/formato';
import { buscarPedido, ErroApi, pagarPedido, type Pedido, type StatusPedido } from '../api';
import { Carregando, ErroCarregar } from '../componentes/Estados';
import { useAgora } from '../useAgora';
import { PaginaNaoEncontrada } from './PaginaNaoEncontrada';

const TITULOS: Record<StatusPedido, string> = {
  AGUARDANDO_PAGAMENTO: 'Pedido reservado',
  PAGO: 'Pedido pago',
  EXPIRADO: 'Reserva expirada',
  CANCELADO: 'Pedido cancelado',
};

function prazoPassou(p: Pedido | null | undefined, agora: number): boolean {
  return (
    !!p &&
    p.status === 'AGUARDANDO_PAGAMENTO' &&
    !!p.reservaExpiraEm &&
    new Date(p.reservaExpiraEm).getTime() <= agora
  );
}

export function PaginaPedido() {
  const { id = '' } = useParams();
  const cliente = useQueryClient();
  const [recusado, setRecusado] = useState(false);
  const [falhaPagamento, setFalhaPagamento] = useState(false);
  const consulta = useQuery({
    queryKey: ['pedido', id],
    queryFn: () => buscarPedido(id),
    // Past the deadline the sweep returns the items shortly: ask again every 5 s until it has.
    refetchInterval: (q) => (prazoPassou(q.state.data, Date.now()) ? 5000 : false),
  });
  const aguardando = consulta.data?.status === 'AGUARDANDO_PAGAMENTO';
  const agora = useAgora(aguardando);
  const vencido = prazoPassou(consulta.data, agora);
  // (Each render re-evaluates refetchInterval: past the deadline the 5 s refetch starts by itself,
  // and the message above stays until the sweep's result comes back.)

  const pagamento = useMutation({
    mutationFn: () => pagarPedido(id),
    onMutate: () => {
      setRecusado(false);
      setFalhaPagamento(false);
    },
    onSuccess: (pedido) => {
      cliente.setQueryData(['pedido', id], pedido);
    },
    onError: (erro) => {
      if (erro instanceof ErroApi && erro.status === 409) {
        setRecusado(true);
        void consulta.refetch();
      } else {
        setFalhaPagamento(true);
      }
    },
  });

  if (consulta.isPending) return <Carregando />;
  if (consulta.isError) return <ErroCarregar aoTentar={() => consulta.refetch()} />;
  const p = consulta.data;
  if (!p) return <PaginaNaoEncontrada />;
  const restante = p.reservaExpiraEm ? new Date(p.reservaExpiraEm).getTime() - agora : 0;

  return (
    <section className="pedido">
      <p className="t-small muted" data-testid="pedido-numero">
        {p.numero ? (
          <>
            Pedido nº <strong className="mono">{p.numero}</strong> · feito em {dataHora(p.criadoEm)}
          </>
        ) : (
          <>
            Pedido <span className="mono">{p.id}</span> · feito em {dataHora(p.criadoEm)}
          </>
        )}
      </p>
      <h1 className="t-display" data-status={p.status}>
        {TITULOS[p.status]}
      </h1>

      {recusado && (
        <p className="aviso aviso-erro" role="alert">
          {p.status === 'CANCELADO'
            ? 'A loja cancelou este pedido antes do pagamento. Nada foi cobrado.'
            : 'O prazo da reserva terminou antes do pagamento.'}
        </p>
      )}
      {p.status === 'AGUARDANDO_PAGAMENTO' && !vencido && (
        <div className="cartao pedido-pagar">
          <p className="aviso aviso-info contagem" role="timer" aria-live="off">
            Itens reservados no estoque por <strong className="mono">{mmss(restante)}</strong> —
            garantimos que ninguém leva o último antes de você concluir o pagamento.
          </p>
          <button
            type="button"
            className="btn btn-primario"
            disabled={pagamento.isPending}
            onClick={() => pagamento.mutate()}
          >
            {pagamento.isPending ? 'Pagando…' : `Pagar ${formatarDinheiro(p.total)}`}
          </button>
          <p className="t-small muted">Pagamento simulado: nenhum valor é cobrado.</p>
          {falhaPagamento && (
            <p className="aviso aviso-erro" role="alert">
              Não conseguimos confirmar o pagamento agora. Tente de novo.
            </p>
          )}
        </div>
      )}
      {vencido && (
        <p className="aviso" role="status">
          O prazo da reserva terminou. Os itens voltam para a vitrine em instantes.
        </p>
      )}
      {p.status === 'PAGO' && (
        <p className="aviso aviso-ok" role="status">
          Pagamento confirmado. Obrigado pela compra!
        </p>
      )}
      {p.status === 'EXPIRADO' && (
        <p className="aviso" role="status">
          O prazo terminou sem pagamento e os itens voltaram para a vitrine.
        </p>
      )}
      {p.status === 'CANCELADO' && !recusado && (
        <p className="aviso" role="status">
          A loja cancelou este pedido e os itens voltaram para a vitrine. Nada foi cobrado.
        </p>
      )}

      <div className="cartao pedido-itens">
        <h2 className="t-title">Itens</h2>
        <ul>
          {p.itens.map((i) => (
            <li key={i.sku} className="pedido-item">
              <span>
                {i.qtd} × {i.nome}
              </span>
              <span className="mono">{formatarCentavos(centavos(i.precoUnitario) * i.qtd)}</span>
            </li>
          ))}
        </ul>
        <div className="resumo-linha">
          <span>Total</span>
          <strong className="mono">{formatarDinheiro(p.total)}</strong>
        </div>
      </div>
      <Link to="/" className="btn btn-contorno">
        Continuar comprando
      </Link>
    </section>
  );
}
