// The event console's API (`/operacao/outbox`, both services) and its texts, shared by the
// dashboard's "Eventos" and mercado's operator pages. Each app passes its own `pedir` (its
// origin's /api, its CSRF cookie, its 401-back-to-login rule).

export type StatusEvento = 'PENDING' | 'SENT' | 'FAILED';

export const TIPOS_EVENTO = [
  'ReposicaoSolicitada',
  'ReposicaoEnviada',
  'ReposicaoNegada',
  'ProdutoClassificado',
] as const;

export interface ResumoOutbox {
  pendentes: number;
  enviados: number;
  falhos: number;
  pendenteMaisAntigoEm: string | null;
  pendenteMaisAntigoSegundos: number | null;
  retencaoInboxSegundos: number;
  /** Absent from an older service. */
  esperandoNovaTentativa?: number;
  ultimoEnvioEm?: string | null;
  /** Events wait for a retry and nothing was delivered since: the peer is silent since then. */
  semRespostaDesde?: string | null;
  semRespostaSegundos?: number | null;
}

export interface Evento {
  id: string;
  tipo: string;
  status: StatusEvento;
  tentativas: number;
  criadoEm: string;
  proximaTentativaEm: string;
  enviadoEm: string | null;
  ultimoErro: string | null;
  payload: unknown;
  /** The aggregate the event is about (the SKU); absent from an older service. */
  chave?: string | null;
  /** What this dead letter holds back until it is dealt with, in pt-BR. */
  bloqueia?: string | null;
}

/** What became of one delivery attempt (`outbox_tentativa`): retried later, the failure that
 * made the event a dead letter, or the delivery that followed failures. */
export type ResultadoTentativa = 'falha_transitoria' | 'falha_permanente' | 'enviado';

/** One delivery attempt on record: every failure, and the success of an event that failed
 * before; at most 20 per event, the newest. */
export interface Tentativa {
  numero: number;
  em: string;
  resultado: ResultadoTentativa;
  erro: string | null;
  /** The peer's HTTP status, when it answered one. */
  status?: number;
}

/** `GET /operacao/outbox/eventos/{id}`: the event, its options, the operators' actions on it and
 * its delivery attempts (newest first; absent from an older service). */
export interface DetalheEvento {
  evento: Evento;
  opcoes: Opcao[];
  historico: unknown[];
  tentativas?: Tentativa[];
}

export const ROTULO_RESULTADO: Record<ResultadoTentativa, string> = {
  falha_transitoria: 'falha transitória',
  falha_permanente: 'falha definitiva',
  enviado: 'entregue',
};

/** An operator action on a dead letter. */
export type AcaoEvento = 'reenviar' | 'descartar' | 'refazer';

/** An action as the service offers it for one type of dead letter: what it will do, before it
 * is confirmed (`efeito`, pt-BR), and whether it is allowed at all (a discard that would leave
 * the peer inconsistent is refused, `efeito` saying why and what to do instead). */
export interface Opcao {
  acao: AcaoEvento;
  rotulo: string;
  efeito: string;
  permitida: boolean;
}

export interface PaginaEventos {
  eventos: Evento[];
  pagina: number;
  tamanho: number;
  total: number;
  opcoesPorTipo?: Record<string, Opcao[]>;
}

/** A discarded or redone event (archived), with what the service did alongside. */
export interface EventoArquivado extends Evento {
  acao: 'descartar' | 'refazer';
  resultado: string;
}

export interface Reenvio {
  reenviados: number;
  restantes: number;
}

export interface Descarte {
  descartados: number;
  restantes: number;
  recusados: number;
}

/** What a console without the service's options offers (an older service). */
export const OPCOES_PADRAO: Opcao[] = [
  {
    acao: 'reenviar',
    rotulo: 'Reenviar',
    efeito: 'O evento volta à fila e é entregue de novo.',
    permitida: true,
  },
  {
    acao: 'descartar',
    rotulo: 'Descartar',
    efeito: 'O evento sai da fila e fica arquivado; o destino não o recebe.',
    permitida: true,
  },
];

function consulta(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}

export interface Filtros {
  status: StatusEvento | '';
  tipo: string;
  /** An event id or its prefix, a SKU or part of one, or words of the product's name. */
  busca?: string;
  pagina: number;
}

export interface PontoSerie {
  minuto: string;
  enviados: number;
  falhos: number;
}

export interface SerieEventos {
  minutos: number;
  pontos: PontoSerie[];
}

export type Pedir = <T>(caminho: string, init?: RequestInit) => Promise<T>;

export const TAMANHO_PAGINA = 20;

export function apiEventos(pedir: Pedir) {
  return {
    resumo: () => pedir<ResumoOutbox>('/operacao/outbox'),
    lista: (f: Filtros) => {
      const q = new URLSearchParams({ pagina: String(f.pagina), tamanho: String(TAMANHO_PAGINA) });
      if (f.status) q.set('status', f.status);
      if (f.tipo) q.set('tipo', f.tipo);
      if (f.busca?.trim()) q.set('busca', f.busca.trim());
      return pedir<PaginaEventos>(`/operacao/outbox/eventos?${q}`);
    },
    detalhe: (id: string) =>
      pedir<DetalheEvento>(`/operacao/outbox/eventos/${encodeURIComponent(id)}`),
    serie: (minutos: number) =>
      pedir<SerieEventos>(`/operacao/outbox/serie?minutos=${encodeURIComponent(String(minutos))}`),
    reenviar: (id: string, forcar: boolean, motivo?: string) =>
      pedir<Reenvio>(
        `/operacao/outbox/eventos/${encodeURIComponent(id)}/reenvio${consulta({ forcar: forcar ? 'true' : undefined, motivo })}`,
        { method: 'POST' },
      ),
    reenviarFalhos: (forcar: boolean, motivo?: string) =>
      pedir<Reenvio>(
        `/operacao/outbox/reenvio${consulta({ forcar: forcar ? 'true' : undefined, motivo })}`,
        { method: 'POST' },
      ),
    descartar: (id: string, motivo: string) =>
      pedir<EventoArquivado>(
        `/operacao/outbox/eventos/${encodeURIComponent(id)}${consulta({ motivo })}`,
        { method: 'DELETE' },
      ),
    refazer: (id: string, motivo: string) =>
      pedir<EventoArquivado>(
        `/operacao/outbox/eventos/${encodeURIComponent(id)}/refazer${consulta({ motivo })}`,
        { method: 'POST' },
      ),
    descartarFalhos: (motivo: string) =>
      pedir<Descarte>(`/operacao/outbox/descarte${consulta({ motivo })}`, { method: 'POST' }),
  };
}

export type ApiEventos = ReturnType<typeof apiEventos>;

/** How often the console asks again: a replayed event turns SENT on screen by itself. */
export const ATUALIZACAO_EVENTOS_MS = 2000;

export const ROTULO_STATUS: Record<StatusEvento, string> = {
  PENDING: 'pendente',
  SENT: 'enviado',
  FAILED: 'falhou',
};

/** The problem's `detail` of a failed write, whatever the app's error class calls it. */
export function detalheDoErro(e: unknown): string | null {
  if (e && typeof e === 'object') {
    const o = e as { detalhe?: unknown; problema?: { detail?: unknown } | null };
    if (typeof o.detalhe === 'string') return o.detalhe;
    if (typeof o.problema?.detail === 'string') return o.problema.detail;
  }
  return null;
}

export function statusDoErro(e: unknown): number | null {
  if (e && typeof e === 'object' && typeof (e as { status?: unknown }).status === 'number') {
    return (e as { status: number }).status;
  }
  return null;
}

/** What each event type is, for people; the type's own name stays beside it (the CLI's). */
export const ROTULO_TIPO: Record<string, string> = {
  ReposicaoSolicitada: 'Pedido de reposição',
  ReposicaoEnviada: 'Remessa de reposição',
  ReposicaoNegada: 'Reposição negada',
  ProdutoClassificado: 'Classificação de produto',
};

export const rotuloTipo = (tipo: string) => ROTULO_TIPO[tipo] ?? tipo;

/** The other service: whom an outbox delivers to. */
export const DESTINO = { estoque: 'mercado', mercado: 'estoque' } as const;

/** How long the peer must be silent before the console says so: a retry or two is routine. */
export const SILENCIO_AVISO_SEGUNDOS = 30;

/** When the next attempt is, from now: "em 4 s", "em 3 min", "agora" (due or overdue). */
export function proximaEm(instante: string, agoraMs: number): string {
  const s = Math.ceil((new Date(instante).getTime() - agoraMs) / 1000);
  return s <= 0 ? 'agora' : `em ${idade(s)}`;
}

/** "12 s", "5 min", "3 h", "2 d" */
export function idade(segundos: number): string {
  if (segundos < 60) return `${segundos} s`;
  if (segundos < 3600) return `${Math.floor(segundos / 60)} min`;
  if (segundos < 86_400) return `${Math.floor(segundos / 3600)} h`;
  return `${Math.floor(segundos / 86_400)} d`;
}
