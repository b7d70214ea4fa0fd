// The event console (issue 18): counts of the service's outbox, a table of its events (by
// default what failed, and why) with each dead letter's ways out behind a confirmation that
// says what the action will do (the service's `opcoesPorTipo`, issue 30) and asks why (recorded
// with the operator), refreshed by itself. One component for the dashboard (estoque) and
// mercado's operator pages.
//
// Issue 26: each event shows its SKU and, for a dead letter, what it blocks (the service's
// words, the CLI's rule); the list is searched by event id or SKU (issue 39: also an id's
// prefix, a part of the SKU, words of the product's name); the next attempt is counted
// from now ("em 4 s", ticking); a banner says when the peer has been silent for
// SILENCIO_AVISO_SEGUNDOS (the service says since when); types have human labels; at narrow
// widths each row is a card (console.css), so status and actions stay on screen. Each event's
// delivery attempts (instant, outcome, error, the peer's status) open under its error, fetched
// from the event's detail only when asked for and refreshed with the rest while open.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import {
  ATUALIZACAO_EVENTOS_MS,
  DESTINO,
  detalheDoErro,
  idade,
  proximaEm,
  ROTULO_RESULTADO,
  rotuloTipo,
  SILENCIO_AVISO_SEGUNDOS,
  ROTULO_STATUS,
  statusDoErro,
  OPCOES_PADRAO,
  TAMANHO_PAGINA,
  TIPOS_EVENTO,
  type AcaoEvento,
  type ApiEventos,
  type Evento,
  type Filtros,
  type Opcao,
  type StatusEvento,
  type Tentativa,
} from './eventos';
import { CampoFiltro } from './Filtro';
import { formatarNumero, quandoCurto } from './formato';
import { Tabela } from './Tabela';

type Acao = { id: string; tipo: AcaoEvento; opcao?: Opcao };

const PERGUNTA: Record<AcaoEvento, string> = {
  reenviar: 'Reenviar este evento?',
  descartar: 'Descartar este evento?',
  refazer: 'Refazer este evento?',
};

const CONFIRMA: Record<AcaoEvento, string> = {
  reenviar: 'Confirmar reenvio',
  descartar: 'Confirmar descarte',
  refazer: 'Confirmar',
};

/** The buttons that act on every dead letter at once (each asks for a confirmation first). */
const PEDIR_TODOS: Record<'reenviar' | 'descartar', string> = {
  reenviar: 'Reenviar todos',
  descartar: 'Descartar todos',
};

/** A discard or a redo is recorded with why: the confirmation asks for it. */
const precisaMotivo = (a: AcaoEvento) => a !== 'reenviar';

/** Now, once a second: the relative times count down by themselves. */
function useAgora(): number {
  const [agora, setAgora] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setAgora(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return agora;
}

/** How often a replayed event is asked about until it is delivered or refused again. */
const ACOMPANHAMENTO_MS = 1000;

/** What became of a replayed event, in the operator's words: `undefined` while its detail is
 * being read. */
export function desfechoDoReenvio(
  e: Evento | undefined,
  destino: string,
  agora: number,
): { desfecho: 'aguardando' | 'entregue' | 'recusado'; classe: string; texto: string } {
  if (e?.status === 'SENT')
    return {
      desfecho: 'entregue',
      classe: 'aviso-ok',
      texto: `Evento entregue: o ${destino} recebeu o reenvio.`,
    };
  if (e?.status === 'FAILED')
    return {
      desfecho: 'recusado',
      classe: 'aviso-erro',
      texto:
        `O reenvio não deu certo: o evento falhou de novo` +
        (e.ultimoErro ? ` (${e.ultimoErro})` : '') +
        '. Veja as tentativas e escolha outra saída.',
    };
  if (e && e.tentativas > 0)
    return {
      desfecho: 'aguardando',
      classe: 'aviso-info',
      texto:
        `Reenviado, ainda não entregue: a tentativa ${formatarNumero(e.tentativas)} falhou` +
        (e.ultimoErro ? ` (${e.ultimoErro})` : '') +
        `; a próxima é ${proximaEm(e.proximaTentativaEm, agora)}.`,
    };
  return {
    desfecho: 'aguardando',
    classe: 'aviso-info',
    texto: `Reenviado: aguardando a entrega ao ${destino}…`,
  };
}

const CLASSE_STATUS: Record<StatusEvento, string> = {
  PENDING: 'selo selo-info',
  SENT: 'selo selo-ok',
  FAILED: 'selo selo-esgotado',
};

export function ConsoleEventos({
  api,
  chave,
  servico,
}: {
  api: ApiEventos;
  /** The query key prefix of the app (its 401 rule drops it). */
  chave: string;
  servico: 'estoque' | 'mercado';
}) {
  const cliente = useQueryClient();
  const [filtros, setFiltros] = useState<Filtros>({
    status: 'FAILED',
    tipo: '',
    busca: '',
    pagina: 1,
  });
  const [busca, setBusca] = useState('');
  const agora = useAgora();
  const [confirmando, setConfirmando] = useState<Acao | null>(null);
  const [confirmandoTodos, setConfirmandoTodos] = useState<'reenviar' | 'descartar' | null>(null);
  const [motivoTodos, setMotivoTodos] = useState('');
  const [aviso, setAviso] = useState<{
    ok: boolean;
    texto: string;
    forcar?: Acao | 'todos';
  } | null>(null);

  const resumo = useQuery({
    queryKey: [chave, 'eventos', 'resumo'],
    queryFn: api.resumo,
    refetchInterval: ATUALIZACAO_EVENTOS_MS,
  });
  const lista = useQuery({
    queryKey: [chave, 'eventos', 'lista', filtros],
    queryFn: () => api.lista(filtros),
    refetchInterval: ATUALIZACAO_EVENTOS_MS,
  });

  const atualizar = () => cliente.invalidateQueries({ queryKey: [chave, 'eventos'] });
  const falhou = (e: unknown, forcar?: Acao | 'todos') => {
    const antigo = statusDoErro(e) === 409 && (detalheDoErro(e) ?? '').includes('inbox.retencao');
    setAviso({
      ok: false,
      texto: detalheDoErro(e) ?? 'Não foi possível concluir. Tente de novo.',
      forcar: antigo ? forcar : undefined,
    });
  };

  // Issue 39: a replay is followed to its outcome — delivered, or refused again — and the
  // console says that, not that the replay was accepted.
  const [acompanhando, setAcompanhando] = useState<{ id: string; desde: number } | null>(null);
  const acompanhamento = useQuery({
    queryKey: [chave, 'eventos', 'reenvio', acompanhando?.id, acompanhando?.desde],
    queryFn: () => api.detalhe(acompanhando!.id),
    enabled: acompanhando != null,
    refetchInterval: (q) =>
      q.state.data && q.state.data.evento.status !== 'PENDING' ? false : ACOMPANHAMENTO_MS,
  });
  const reenvio = useMutation({
    mutationFn: ({ id, forcar, motivo }: { id: string; forcar: boolean; motivo?: string }) =>
      api.reenviar(id, forcar, motivo),
    onSuccess: (_, v) => setAcompanhando({ id: v.id, desde: Date.now() }),
    onError: (e, v) => falhou(e, { id: v.id, tipo: 'reenviar' }),
    onSettled: atualizar,
  });
  const reenvioTodos = useMutation({
    mutationFn: (forcar: boolean) => api.reenviarFalhos(forcar, motivoTodos.trim() || undefined),
    onSuccess: (r) =>
      setAviso({
        ok: true,
        texto:
          (r.reenviados === 1
            ? '1 evento reenviado.'
            : `${formatarNumero(r.reenviados)} eventos reenviados.`) +
          (r.restantes > 0
            ? ` ${formatarNumero(r.restantes)} ainda falharam: reenvie de novo para continuar.`
            : ''),
      }),
    onError: (e) => falhou(e, 'todos'),
    onSettled: atualizar,
  });
  const descarte = useMutation({
    mutationFn: ({ id, acao, motivo }: { id: string; acao: AcaoEvento; motivo: string }) =>
      acao === 'refazer' ? api.refazer(id, motivo) : api.descartar(id, motivo),
    onSuccess: (e) =>
      setAviso({
        ok: true,
        texto:
          `Evento ${e.tipo} ${e.acao === 'refazer' ? 'refeito' : 'descartado'}.` +
          (e.resultado ? ` ${e.resultado.charAt(0).toUpperCase()}${e.resultado.slice(1)}.` : ''),
      }),
    onError: (e) => falhou(e),
    onSettled: atualizar,
  });
  const descarteTodos = useMutation({
    mutationFn: () => api.descartarFalhos(motivoTodos.trim()),
    onSuccess: (r) =>
      setAviso({
        ok: true,
        texto:
          (r.descartados === 1
            ? '1 evento descartado.'
            : `${formatarNumero(r.descartados)} eventos descartados.`) +
          (r.recusados > 0
            ? ` ${formatarNumero(r.recusados)} não podem ser descartados (o destino espera por eles): use Reemitir em cada um.`
            : '') +
          (r.restantes > 0
            ? ` ${formatarNumero(r.restantes)} restam: descarte de novo para continuar.`
            : ''),
      }),
    onError: (e) => falhou(e),
    onSettled: atualizar,
  });

  function confirmar(a: Acao, motivo: string) {
    setConfirmando(null);
    setAviso(null);
    setAcompanhando(null);
    if (a.tipo === 'reenviar')
      reenvio.mutate({ id: a.id, forcar: false, motivo: motivo || undefined });
    else descarte.mutate({ id: a.id, acao: a.tipo, motivo });
  }

  function forcar() {
    const alvo = aviso?.forcar;
    setAviso(null);
    setAcompanhando(null);
    if (alvo === 'todos') reenvioTodos.mutate(true);
    else if (alvo) reenvio.mutate({ id: alvo.id, forcar: true });
  }

  const r = resumo.data;
  const p = lista.data;
  const destino = DESTINO[servico];
  const resultadoReenvio = acompanhando
    ? desfechoDoReenvio(acompanhamento.data?.evento, destino, agora)
    : null;
  const silencio =
    r?.semRespostaSegundos != null && r.semRespostaSegundos >= SILENCIO_AVISO_SEGUNDOS
      ? r.semRespostaSegundos
      : null;
  function buscar(ev: FormEvent) {
    ev.preventDefault();
    // A search looks at every status: the event sought may have been delivered.
    setFiltros({
      ...filtros,
      busca: busca.trim(),
      status: busca.trim() ? '' : filtros.status,
      pagina: 1,
    });
  }
  const paginas = p ? Math.max(1, Math.ceil(p.total / TAMANHO_PAGINA)) : 1;
  const ocupado =
    reenvio.isPending || reenvioTodos.isPending || descarte.isPending || descarteTodos.isPending;
  const opcoes = (tipo: string) => p?.opcoesPorTipo?.[tipo] ?? OPCOES_PADRAO;

  return (
    <section id="eventos" className="cartao secao console-eventos" aria-labelledby="titulo-eventos">
      <div className="secao-cabecalho">
        <h2 id="titulo-eventos" className="t-title">
          Eventos
        </h2>
        <p className="t-small muted subtitulo">
          Outbox do {servico}: o que espera entrega, o que foi entregue e o que falhou.
        </p>
      </div>

      {silencio != null && (
        <div
          className="aviso aviso-erro eventos-sem-resposta"
          role="alert"
          data-testid="eventos-sem-resposta"
        >
          <p>
            <strong>
              O {destino} não responde há {idade(silencio)}.
            </strong>{' '}
            {r?.esperandoNovaTentativa === 1
              ? '1 evento espera nova tentativa'
              : `${formatarNumero(r?.esperandoNovaTentativa ?? 0)} eventos esperam nova tentativa`}
            . As entregas retomam sozinhas quando ele voltar: confira se o {destino} está no ar.
          </p>
        </div>
      )}

      {resumo.isError && !r ? (
        <p className="aviso aviso-erro" role="alert">
          Não foi possível carregar os eventos.
        </p>
      ) : (
        <div className="eventos-contagens" aria-label="Eventos por status">
          <div className="cartao kpi eventos-kpi-pendentes" data-testid="eventos-pendentes">
            <span className="t-small muted">Pendentes</span>
            <span className="kpi-valor">{r ? formatarNumero(r.pendentes) : '—'}</span>
            <span className="t-caption muted">
              {r?.pendenteMaisAntigoSegundos != null
                ? `mais antigo há ${idade(r.pendenteMaisAntigoSegundos)}`
                : 'nenhum esperando'}
            </span>
          </div>
          <div className="cartao kpi eventos-kpi-enviados" data-testid="eventos-enviados">
            <span className="t-small muted">Enviados</span>
            <span className="kpi-valor">{r ? formatarNumero(r.enviados) : '—'}</span>
          </div>
          <div className="cartao kpi eventos-kpi-falhos" data-testid="eventos-falhos">
            <span className="t-small muted">Falharam</span>
            <span className="kpi-valor">{r ? formatarNumero(r.falhos) : '—'}</span>
            {r && r.falhos > 0 && !confirmandoTodos && (
              <div className="evento-botoes">
                {(['reenviar', 'descartar'] as const).map((acao) => (
                  <button
                    key={acao}
                    type="button"
                    className="btn btn-contorno"
                    disabled={ocupado}
                    onClick={() => {
                      setMotivoTodos('');
                      setAcompanhando(null);
                      setConfirmandoTodos(acao);
                    }}
                  >
                    {PEDIR_TODOS[acao]}
                  </button>
                ))}
              </div>
            )}
            {confirmandoTodos && (
              <div
                className="confirmacao"
                role="group"
                aria-label={
                  confirmandoTodos === 'reenviar'
                    ? 'Confirmar reenvio de todos'
                    : 'Confirmar descarte de todos'
                }
              >
                <span className="t-small">
                  {confirmandoTodos === 'reenviar'
                    ? `Reenviar ${r ? formatarNumero(r.falhos) : ''} evento(s)?`
                    : `Descartar ${r ? formatarNumero(r.falhos) : ''} evento(s)? Cada um é arquivado com o reparo do seu tipo; respostas que o destino espera ficam para Reemitir.`}
                </span>
                <label className="t-small" htmlFor="motivo-todos">
                  Motivo{confirmandoTodos === 'reenviar' ? ' (opcional)' : ''}
                </label>
                <input
                  id="motivo-todos"
                  value={motivoTodos}
                  maxLength={500}
                  onChange={(e) => setMotivoTodos(e.target.value)}
                />
                <button
                  type="button"
                  className={
                    confirmandoTodos === 'reenviar' ? 'btn btn-secundario' : 'btn btn-perigo'
                  }
                  disabled={confirmandoTodos === 'descartar' && !motivoTodos.trim()}
                  onClick={() => {
                    const qual = confirmandoTodos;
                    setConfirmandoTodos(null);
                    setAviso(null);
                    if (qual === 'reenviar') reenvioTodos.mutate(false);
                    else descarteTodos.mutate();
                  }}
                >
                  {confirmandoTodos === 'reenviar'
                    ? 'Confirmar reenvio de todos'
                    : 'Confirmar descarte de todos'}
                </button>
                <button
                  type="button"
                  className="btn btn-link"
                  onClick={() => setConfirmandoTodos(null)}
                >
                  Cancelar
                </button>
              </div>
            )}
          </div>
        </div>
      )}

      <div role="status" aria-live="polite" className="eventos-aviso">
        {resultadoReenvio && !aviso && (
          <div
            className={`aviso ${resultadoReenvio.classe}`}
            data-testid="eventos-aviso"
            data-desfecho={resultadoReenvio.desfecho}
          >
            <p>{resultadoReenvio.texto}</p>
            <button type="button" className="btn btn-link" onClick={() => setAcompanhando(null)}>
              Fechar
            </button>
          </div>
        )}
        {aviso && (
          <div
            className={`aviso ${aviso.ok ? 'aviso-ok' : 'aviso-erro'}`}
            data-testid="eventos-aviso"
          >
            <p>{aviso.texto}</p>
            {aviso.forcar && (
              <button type="button" className="btn btn-contorno" onClick={forcar}>
                Reenviar mesmo assim
              </button>
            )}
          </div>
        )}
      </div>

      <div className="eventos-filtros">
        <div className="campo">
          <label htmlFor="filtro-status">Status</label>
          <select
            id="filtro-status"
            value={filtros.status}
            onChange={(e) =>
              setFiltros({ ...filtros, status: e.target.value as Filtros['status'], pagina: 1 })
            }
          >
            <option value="FAILED">Falharam</option>
            <option value="PENDING">Pendentes</option>
            <option value="SENT">Enviados</option>
            <option value="">Todos</option>
          </select>
        </div>
        <CampoFiltro
          id="filtro-tipo"
          rotulo="Tipo"
          todos="Todos"
          valor={filtros.tipo}
          opcoes={TIPOS_EVENTO}
          rotuloDe={rotuloTipo}
          aoMudar={(tipo) => setFiltros({ ...filtros, tipo, pagina: 1 })}
        />
        <form className="campo eventos-busca" role="search" onSubmit={buscar}>
          <label htmlFor="busca-eventos">Buscar por id, SKU ou produto</label>
          <div className="eventos-busca-linha">
            <input
              id="busca-eventos"
              type="search"
              value={busca}
              maxLength={100}
              placeholder="ex.: coca, um SKU ou o início do id"
              onChange={(e) => setBusca(e.target.value)}
            />
            <button type="submit" className="btn btn-contorno">
              Buscar
            </button>
            {filtros.busca && (
              <button
                type="button"
                className="btn btn-link"
                onClick={() => {
                  setBusca('');
                  // Back to the console's first view: what failed.
                  setFiltros({ ...filtros, busca: '', status: 'FAILED', pagina: 1 });
                }}
              >
                Limpar busca
              </button>
            )}
          </div>
        </form>
      </div>

      {lista.isError && !p ? (
        <p className="aviso aviso-erro" role="alert">
          Não foi possível carregar os eventos.
        </p>
      ) : !p ? (
        <p className="muted">Carregando…</p>
      ) : p.eventos.length === 0 ? (
        <p className="muted vazio">
          {filtros.busca
            ? `Nenhum evento com “${filtros.busca}” no id, no SKU ou no nome do produto. Confira o texto ou escolha outro status.`
            : filtros.status === 'FAILED'
              ? 'Nenhum evento falhou. Tudo o que saiu foi entregue ou está a caminho.'
              : 'Nenhum evento com esses filtros.'}
        </p>
      ) : (
        <>
          <Tabela
            className="tabela-eventos"
            colunas={['Evento', 'Status', 'Quando', 'Último erro', 'Ações']}
          >
            {p.eventos.map((e) => (
              <LinhaEvento
                key={e.id}
                api={api}
                chave={chave}
                evento={e}
                opcoes={opcoes(e.tipo)}
                agora={agora}
                confirmando={confirmando?.id === e.id ? confirmando : null}
                ocupado={ocupado}
                aoPedir={(a) => {
                  setAviso(null);
                  setAcompanhando(null);
                  setConfirmando(a);
                }}
                aoConfirmar={confirmar}
                aoCancelar={() => setConfirmando(null)}
              />
            ))}
          </Tabela>
          {paginas > 1 && (
            <nav className="paginacao" aria-label="Páginas de eventos">
              <button
                type="button"
                className="btn btn-contorno"
                disabled={filtros.pagina <= 1}
                onClick={() => setFiltros({ ...filtros, pagina: filtros.pagina - 1 })}
              >
                Anterior
              </button>
              <span className="t-small muted">
                Página {filtros.pagina} de {paginas}
              </span>
              <button
                type="button"
                className="btn btn-contorno"
                disabled={filtros.pagina >= paginas}
                onClick={() => setFiltros({ ...filtros, pagina: filtros.pagina + 1 })}
              >
                Próxima
              </button>
            </nav>
          )}
        </>
      )}
    </section>
  );
}

const CLASSE_RESULTADO: Record<Tentativa['resultado'], string> = {
  falha_transitoria: 'selo selo-info',
  falha_permanente: 'selo selo-esgotado',
  enviado: 'selo selo-ok',
};

/** "Tentativa 3 · há 12 s · falha transitória · HTTP 503", then the error. */
function ItemTentativa({ t, agora }: { t: Tentativa; agora: number }) {
  const ha = Math.max(0, Math.floor((agora - new Date(t.em).getTime()) / 1000));
  return (
    <li className="evento-tentativa" data-numero={t.numero} data-resultado={t.resultado}>
      <span className="evento-tentativa-linha t-small">
        <strong>Tentativa {formatarNumero(t.numero)}</strong>
        <span aria-hidden="true"> · </span>
        <time dateTime={t.em} title={quandoCurto(t.em)}>
          há {idade(ha)}
        </time>
        <span aria-hidden="true"> · </span>
        <span className={CLASSE_RESULTADO[t.resultado]}>{ROTULO_RESULTADO[t.resultado]}</span>
        {t.status != null && (
          <>
            <span aria-hidden="true"> · </span>
            <span className="mono">HTTP {t.status}</span>
          </>
        )}
      </span>
      {t.erro && <span className="t-caption mono evento-tentativa-erro">{t.erro}</span>}
    </li>
  );
}

/** The event's delivery attempts, asked for when opened (the detail route), newest first. */
function Tentativas({
  api,
  chave,
  id,
  agora,
}: {
  api: ApiEventos;
  chave: string;
  id: string;
  agora: number;
}) {
  const detalhe = useQuery({
    queryKey: [chave, 'eventos', 'detalhe', id],
    queryFn: () => api.detalhe(id),
    refetchInterval: ATUALIZACAO_EVENTOS_MS,
  });
  if (detalhe.isError && !detalhe.data)
    return (
      <p className="t-small aviso aviso-erro" role="alert">
        Não foi possível carregar as tentativas. Tente de novo em instantes.
      </p>
    );
  if (!detalhe.data) return <p className="t-small muted">Carregando tentativas…</p>;
  const tentativas = detalhe.data.tentativas ?? [];
  if (tentativas.length === 0)
    return (
      <p className="t-small muted">
        Nenhuma falha registrada: as tentativas que deram certo de primeira não ficam no histórico.
      </p>
    );
  return (
    <ol
      className="evento-tentativas-lista"
      aria-label="Tentativas de entrega, da mais recente à mais antiga"
    >
      {tentativas.map((t, i) => (
        <ItemTentativa key={`${t.numero}-${t.em}-${i}`} t={t} agora={agora} />
      ))}
    </ol>
  );
}

function LinhaEvento({
  api,
  chave,
  evento: e,
  opcoes,
  agora,
  confirmando,
  ocupado,
  aoPedir,
  aoConfirmar,
  aoCancelar,
}: {
  api: ApiEventos;
  chave: string;
  evento: Evento;
  opcoes: Opcao[];
  agora: number;
  confirmando: Acao | null;
  ocupado: boolean;
  aoPedir: (a: Acao) => void;
  aoConfirmar: (a: Acao, motivo: string) => void;
  aoCancelar: () => void;
}) {
  const [motivo, setMotivo] = useState('');
  const [verTentativas, setVerTentativas] = useState(false);
  const o = confirmando?.opcao;
  // An opened confirmation is brought on screen, its first field focused: it opens under the
  // event, which may be the last row in view.
  const refConfirmacao = useRef<HTMLTableRowElement>(null);
  const aberta = confirmando ? `${confirmando.id}-${confirmando.tipo}` : null;
  useEffect(() => {
    const linha = refConfirmacao.current;
    if (!aberta || !linha) return;
    linha.scrollIntoView?.({ block: 'nearest' });
    linha.querySelector<HTMLElement>('input, button')?.focus({ preventScroll: true });
  }, [aberta]);
  return (
    <>
      <tr data-event-id={e.id} data-status={e.status}>
        <td data-rotulo="Evento" className="evento-tipo">
          <span>{rotuloTipo(e.tipo)}</span>
          {e.chave && (
            <span className="t-small mono evento-sku">
              <span className="muted">SKU </span>
              {e.chave}
            </span>
          )}
          <span className="t-caption muted mono">{e.tipo}</span>
        </td>
        <td data-rotulo="Status" className="evento-status">
          <span className={CLASSE_STATUS[e.status]}>{ROTULO_STATUS[e.status]}</span>
          <span className="t-caption muted">
            {e.tentativas === 1 ? '1 tentativa' : `${formatarNumero(e.tentativas)} tentativas`}
          </span>
        </td>
        <td data-rotulo="Quando" className="evento-quando t-small">
          <span>
            <span className="muted">criado </span>
            <time dateTime={e.criadoEm}>{quandoCurto(e.criadoEm)}</time>
          </span>
          {e.status === 'PENDING' && (
            <span>
              <span className="muted">próxima </span>
              <time dateTime={e.proximaTentativaEm} title={quandoCurto(e.proximaTentativaEm)}>
                {proximaEm(e.proximaTentativaEm, agora)}
              </time>
            </span>
          )}
        </td>
        <td data-rotulo="Último erro" className="evento-erro">
          {e.ultimoErro ? (
            <span className="mono">{e.ultimoErro}</span>
          ) : (
            <span className="muted">—</span>
          )}
          {e.bloqueia && (
            <p className="t-small evento-bloqueia" data-testid="evento-bloqueia">
              {e.bloqueia}
            </p>
          )}
          <div className="evento-detalhes">
            {e.tentativas > 0 && (
              <button
                type="button"
                className="btn btn-link t-small evento-tentativas-botao"
                aria-expanded={verTentativas}
                aria-controls={`tentativas-${e.id}`}
                onClick={() => setVerTentativas(!verTentativas)}
              >
                <span aria-hidden="true">{verTentativas ? '▾ ' : '▸ '}</span>
                Tentativas
              </button>
            )}
            <details className="evento-payload">
              <summary className="t-small">Payload</summary>
              <pre className="mono">{JSON.stringify(e.payload, null, 2)}</pre>
              <p className="t-caption muted mono">{e.id}</p>
            </details>
          </div>
        </td>
        <td data-rotulo="Ações" className="evento-acoes">
          {e.status === 'FAILED' && (
            <div className="evento-botoes">
              {opcoes.map((op) => (
                <button
                  key={op.acao}
                  type="button"
                  className="btn btn-contorno"
                  disabled={ocupado}
                  aria-pressed={confirmando?.tipo === op.acao}
                  title={op.permitida ? undefined : op.efeito}
                  onClick={() => {
                    setMotivo('');
                    aoPedir({ id: e.id, tipo: op.acao, opcao: op });
                  }}
                >
                  {op.rotulo}
                </button>
              ))}
            </div>
          )}
        </td>
      </tr>
      {e.status === 'FAILED' && confirmando && (
        // A row of its own, the table's width, under the event: the explanation and the reason
        // are read in full, never squeezed into the actions' column (issue 39).
        <tr className="evento-confirmacao-linha" data-confirmacao-de={e.id} ref={refConfirmacao}>
          <td colSpan={5}>
            <div className="confirmacao" role="group" aria-label="Confirmação">
              <p className="t-small confirmacao-pergunta">
                <strong>
                  {o && confirmando.tipo === 'refazer'
                    ? `${o.rotulo}?`
                    : PERGUNTA[confirmando.tipo]}
                </strong>
                {o && (
                  <span data-testid="evento-efeito">
                    {o.permitida ? o.efeito : `Não é possível: ${o.efeito}`}
                  </span>
                )}
              </p>
              {(!o || o.permitida) && (
                <div className="confirmacao-campos">
                  <label className="t-small" htmlFor={`motivo-${e.id}`}>
                    Motivo{precisaMotivo(confirmando.tipo) ? '' : ' (opcional)'}
                  </label>
                  <input
                    id={`motivo-${e.id}`}
                    value={motivo}
                    maxLength={500}
                    onChange={(ev) => setMotivo(ev.target.value)}
                  />
                  <button
                    type="button"
                    className={
                      confirmando.tipo === 'reenviar' ? 'btn btn-secundario' : 'btn btn-perigo'
                    }
                    disabled={precisaMotivo(confirmando.tipo) && !motivo.trim()}
                    onClick={() => aoConfirmar(confirmando, motivo.trim())}
                  >
                    {CONFIRMA[confirmando.tipo]}
                  </button>
                  <button type="button" className="btn btn-link" onClick={aoCancelar}>
                    Cancelar
                  </button>
                </div>
              )}
              {o && !o.permitida && (
                <button type="button" className="btn btn-link" onClick={aoCancelar}>
                  Fechar
                </button>
              )}
            </div>
          </td>
        </tr>
      )}
      {verTentativas && (
        // A row of its own, the table's width: the attempts' errors are long. At narrow widths it
        // is a card joined to the event's (console.css).
        <tr className="evento-tentativas-linha" data-tentativas-de={e.id}>
          <td colSpan={5} data-rotulo="Tentativas de entrega">
            <div id={`tentativas-${e.id}`} data-testid="evento-tentativas">
              <Tentativas api={api} chave={chave} id={e.id} agora={agora} />
            </div>
          </td>
        </tr>
      )}
    </>
  );
}
