import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { formatarNumero } from '../../../shared/formato';
import { ncmValido, normalizarNcm, skuValido } from '../../../shared/sku';
import { ErroApi, produto, registrarLote, type EntradaLote } from '../api';
import {
  CODIGO_LOTE_VAZIO,
  DESCRICAO_VAZIA,
  ERRO_LOTE,
  NCM_INVALIDO,
  QUANTIDADE_INVALIDA,
  SKU_VAZIO,
  mensagemLoteRegistrado,
  perguntaLoteVencido,
  SKU_ERRO,
  SKU_INVALIDO,
  SKU_NOVO,
  VALIDADE_PASSADA,
} from '../mensagens';
import { useAtrasado } from '../../../shared/useAtrasado';

const VAZIO = {
  sku: '',
  quantidade: '',
  codigoLote: '',
  validade: '',
  descricao: '',
  ncm: '',
};

/** Today in São Paulo (UTC−3 all year since 2019), as estoque counts expiry: `YYYY-MM-DD`. */
export function hojeSaoPaulo(agora: number = Date.now()): string {
  return new Date(agora - 3 * 3600_000).toISOString().slice(0, 10);
}

type Campo = keyof typeof VAZIO;

/** What is wrong with each field, in pt-BR; `novo`: the SKU is unknown, so description and NCM
 * are asked for. */
export function errosDoLote(f: typeof VAZIO, novo: boolean): Partial<Record<Campo, string>> {
  const erros: Partial<Record<Campo, string>> = {};
  const sku = f.sku.trim();
  if (!sku) erros.sku = SKU_VAZIO;
  else if (!skuValido(sku)) erros.sku = SKU_INVALIDO;
  if (novo && !f.descricao.trim()) erros.descricao = DESCRICAO_VAZIA;
  if (novo && !ncmValido(f.ncm)) erros.ncm = NCM_INVALIDO;
  const q = f.quantidade.trim();
  if (!/^\d+$/.test(q) || Number.parseInt(q, 10) < 1) erros.quantidade = QUANTIDADE_INVALIDA;
  if (!f.codigoLote.trim()) erros.codigoLote = CODIGO_LOTE_VAZIO;
  return erros;
}

const ORDEM: Campo[] = ['sku', 'descricao', 'ncm', 'quantidade', 'codigoLote', 'validade'];

export function FormularioLote() {
  const cliente = useQueryClient();
  const [f, setF] = useState(VAZIO);
  const [resultado, setResultado] = useState<{ ok: boolean; texto: string } | null>(null);
  // The question "register this expired lot?" is on screen (asked on submit, SPEC §8.2).
  const [confirmando, setConfirmando] = useState(false);
  const refValidade = useRef<HTMLInputElement>(null);
  // The checks' messages, shown once the operator submits (and updated as they correct).
  const [tentou, setTentou] = useState(false);
  const campo = (k: keyof typeof VAZIO) => (e: { target: { value: string } }) => {
    // A changed entry is not the one the operator confirmed: ask again on the next submit.
    setConfirmando(false);
    setF((v) => ({ ...v, [k]: e.target.value }));
  };
  // A validade already past: estoque takes the lot in as expired (never shipped, kept for the
  // write-off; SPEC §6.2.1), as the original does. The form asks the operator first.
  const vencido = f.validade !== '' && f.validade < hojeSaoPaulo();

  const sku = useAtrasado(f.sku.trim(), 300);
  const valido = skuValido(sku);
  const consulta = useQuery({
    queryKey: ['produto-estoque', sku],
    queryFn: () => produto(sku),
    enabled: valido,
    retry: false,
    staleTime: 0,
  });
  // Still typing (the debounce has not caught up) counts as not looked up yet.
  const emDia = sku === f.sku.trim();
  const novo =
    emDia && valido && ((consulta.isSuccess && consulta.data === null) || consulta.isError);

  const registro = useMutation({
    mutationFn: (entrada: EntradaLote) => registrarLote(entrada),
    onMutate: () => setResultado(null),
    onSuccess: (r, entrada) => {
      setResultado({
        ok: true,
        texto: mensagemLoteRegistrado(entrada.codigoLote, r, entrada.confirmarVencido === true),
      });
      setF(VAZIO);
      setConfirmando(false);
      void cliente.invalidateQueries({ queryKey: ['painel'] });
      void cliente.invalidateQueries({ queryKey: ['produto-estoque', entrada.sku] });
    },
    onError: (erro) =>
      setResultado({ ok: false, texto: (erro instanceof ErroApi && erro.detalhe) || ERRO_LOTE }),
  });

  /** The entry as the form holds it, or null while the SKU is not valid. */
  function entradaDoFormulario(): EntradaLote | null {
    const s = f.sku.trim();
    if (!skuValido(s)) return null;
    const entrada: EntradaLote = {
      sku: s,
      codigoLote: f.codigoLote.trim(),
      quantidade: Number.parseInt(f.quantidade, 10),
    };
    if (f.validade) entrada.validade = f.validade;
    if (novo) {
      entrada.descricao = f.descricao.trim();
      entrada.ncm = normalizarNcm(f.ncm);
    }
    return entrada;
  }

  const erros = tentou ? errosDoLote(f, novo) : {};
  const erroDe = (k: Campo) =>
    erros[k]
      ? { 'aria-invalid': true as const, 'aria-describedby': `lote-${k}-erro` }
      : { 'aria-invalid': undefined };
  const mensagemDe = (k: Campo) =>
    erros[k] ? (
      <span id={`lote-${k}-erro`} className="ajuda ajuda-erro t-small">
        {erros[k]}
      </span>
    ) : null;

  function enviar(e: FormEvent) {
    e.preventDefault();
    const achados = errosDoLote(f, novo);
    const primeiro = ORDEM.find((k) => achados[k]);
    if (primeiro) {
      setTentou(true);
      setResultado(null);
      document
        .getElementById(primeiro === 'codigoLote' ? 'lote-codigo' : `lote-${primeiro}`)
        ?.focus();
      return;
    }
    setTentou(false);
    const entrada = entradaDoFormulario();
    if (!entrada) return;
    if (vencido) {
      // Nothing is sent until the operator answers the question.
      setResultado(null);
      setConfirmando(true);
      return;
    }
    registro.mutate(entrada);
  }

  function enviarVencido() {
    const entrada = entradaDoFormulario();
    if (!entrada) return;
    registro.mutate({ ...entrada, confirmarVencido: true });
  }

  let ajudaSku: { texto: string; tipo: string } | null = null;
  if (f.sku.trim() && emDia) {
    if (!valido) ajudaSku = { texto: SKU_INVALIDO, tipo: 'erro' };
    else if (consulta.isError) ajudaSku = { texto: SKU_ERRO, tipo: 'erro' };
    else if (consulta.isSuccess && consulta.data === null)
      ajudaSku = { texto: SKU_NOVO, tipo: 'info' };
    else if (consulta.data)
      ajudaSku = {
        texto:
          `${consulta.data.descricao} · saldo ${formatarNumero(consulta.data.saldoDisponivel)}` +
          (consulta.data.saldoVencido
            ? ` · ${formatarNumero(consulta.data.saldoVencido)} vencidas (sem saída: dê baixa no Estoque)`
            : ''),
        tipo: 'ok',
      };
  }

  return (
    <section id="entrada-lote" className="cartao secao" aria-labelledby="titulo-lote">
      <h2 id="titulo-lote" className="t-title">
        Entrada de lote
      </h2>
      <form className="formulario-lote" onSubmit={enviar} noValidate>
        <div className="campo campo-sku">
          <label htmlFor="lote-sku">SKU/EAN</label>
          <input
            id="lote-sku"
            inputMode="numeric"
            autoComplete="off"
            maxLength={14}
            value={f.sku}
            onChange={campo('sku')}
            aria-describedby="lote-sku-ajuda"
            aria-invalid={(ajudaSku?.tipo === 'erro' && !valido) || erros.sku ? true : undefined}
            className="mono"
          />
          <span
            id="lote-sku-ajuda"
            className={`ajuda ajuda-${erros.sku && !ajudaSku ? 'erro' : (ajudaSku?.tipo ?? 'vazia')}`}
            role="status"
          >
            {ajudaSku?.texto ?? erros.sku ?? ''}
          </span>
        </div>
        {novo && (
          <>
            <div className="campo campo-largo">
              <label htmlFor="lote-descricao">Descrição</label>
              <input
                id="lote-descricao"
                maxLength={255}
                value={f.descricao}
                onChange={campo('descricao')}
                {...erroDe('descricao')}
              />
              {mensagemDe('descricao')}
            </div>
            <div className="campo">
              <label htmlFor="lote-ncm">NCM</label>
              {/* As written on the invoice (1905.31.00) or digits only: the dots are dropped. */}
              <input
                id="lote-ncm"
                inputMode="decimal"
                autoComplete="off"
                placeholder="0000.00.00"
                value={f.ncm}
                onChange={campo('ncm')}
                className="mono"
                {...erroDe('ncm')}
              />
              {mensagemDe('ncm')}
            </div>
          </>
        )}
        <div className="campo">
          <label htmlFor="lote-quantidade">Quantidade</label>
          <input
            id="lote-quantidade"
            type="number"
            inputMode="numeric"
            min={1}
            step={1}
            value={f.quantidade}
            onChange={campo('quantidade')}
            {...erroDe('quantidade')}
          />
          {mensagemDe('quantidade')}
        </div>
        <div className="campo">
          <label htmlFor="lote-codigo">Código do lote</label>
          <input
            id="lote-codigo"
            maxLength={50}
            value={f.codigoLote}
            onChange={campo('codigoLote')}
            className="mono"
            {...erroDe('codigoLote')}
          />
          {mensagemDe('codigoLote')}
        </div>
        <div className="campo">
          <label htmlFor="lote-validade">Validade</label>
          <input
            id="lote-validade"
            ref={refValidade}
            type="date"
            value={f.validade}
            onChange={campo('validade')}
            aria-describedby="lote-validade-ajuda"
          />
          <span id="lote-validade-ajuda" className="ajuda ajuda-erro" role="status">
            {vencido ? VALIDADE_PASSADA : ''}
          </span>
        </div>
        <div className="formulario-acoes">
          {confirmando && vencido ? (
            <div
              className="aviso aviso-erro confirmacao-vencido"
              role="group"
              aria-label="Confirmar lote vencido"
              aria-describedby="lote-vencido-pergunta"
            >
              <p id="lote-vencido-pergunta">
                {perguntaLoteVencido(f.codigoLote.trim(), f.validade)}
              </p>
              <div className="confirmacao-acoes">
                <button
                  type="button"
                  className="btn btn-secundario"
                  disabled={registro.isPending}
                  onClick={enviarVencido}
                  autoFocus
                >
                  {registro.isPending ? 'Registrando…' : 'Registrar lote vencido'}
                </button>
                <button
                  type="button"
                  className="btn btn-link"
                  disabled={registro.isPending}
                  onClick={() => {
                    setConfirmando(false);
                    refValidade.current?.focus();
                  }}
                >
                  Corrigir a validade
                </button>
              </div>
            </div>
          ) : (
            <button type="submit" className="btn btn-secundario" disabled={registro.isPending}>
              {registro.isPending ? 'Registrando…' : 'Dar entrada no estoque'}
            </button>
          )}
        </div>
      </form>
      {resultado && (
        <p
          className={`aviso ${resultado.ok ? 'aviso-ok' : 'aviso-erro'}`}
          role={resultado.ok ? 'status' : 'alert'}
          data-testid="resultado-lote"
        >
          {resultado.texto}
        </p>
      )}
      <p className="t-small muted">
        Ao dar entrada, o Girô classifica as tags do produto e atende a demanda reprimida deste SKU
        automaticamente.
      </p>
    </section>
  );
}
