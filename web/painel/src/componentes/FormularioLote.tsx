import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { formatarNumero } from '../../../shared/formato';
import { NCM, skuValido } from '../../../shared/sku';
import { ErroApi, produto, registrarLote, type EntradaLote } from '../api';
import {
  ERRO_LOTE,
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

export function FormularioLote() {
  const cliente = useQueryClient();
  const [f, setF] = useState(VAZIO);
  const [resultado, setResultado] = useState<{ ok: boolean; texto: string } | null>(null);
  // The question "register this expired lot?" is on screen (asked on submit, SPEC §8.2).
  const [confirmando, setConfirmando] = useState(false);
  const refValidade = useRef<HTMLInputElement>(null);
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
      entrada.ncm = f.ncm.trim();
    }
    return entrada;
  }

  function enviar(e: FormEvent) {
    e.preventDefault();
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
      <form className="formulario-lote" onSubmit={enviar}>
        <div className="campo campo-sku">
          <label htmlFor="lote-sku">SKU/EAN</label>
          <input
            id="lote-sku"
            inputMode="numeric"
            autoComplete="off"
            required
            maxLength={14}
            value={f.sku}
            onChange={campo('sku')}
            aria-describedby="lote-sku-ajuda"
            aria-invalid={ajudaSku?.tipo === 'erro' && !valido ? true : undefined}
            className="mono"
          />
          <span
            id="lote-sku-ajuda"
            className={`ajuda ajuda-${ajudaSku?.tipo ?? 'vazia'}`}
            role="status"
          >
            {ajudaSku?.texto ?? ''}
          </span>
        </div>
        {novo && (
          <>
            <div className="campo campo-largo">
              <label htmlFor="lote-descricao">Descrição</label>
              <input
                id="lote-descricao"
                required
                maxLength={255}
                value={f.descricao}
                onChange={campo('descricao')}
              />
            </div>
            <div className="campo">
              <label htmlFor="lote-ncm">NCM</label>
              <input
                id="lote-ncm"
                required
                inputMode="numeric"
                maxLength={8}
                pattern={NCM.source.slice(1, -1)}
                title="8 dígitos"
                value={f.ncm}
                onChange={campo('ncm')}
                className="mono"
              />
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
            required
            value={f.quantidade}
            onChange={campo('quantidade')}
          />
        </div>
        <div className="campo">
          <label htmlFor="lote-codigo">Código do lote</label>
          <input
            id="lote-codigo"
            required
            maxLength={50}
            value={f.codigoLote}
            onChange={campo('codigoLote')}
            className="mono"
          />
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
