// The product form of mercado's operator pages (issue 26): registering a product (POST
// /produtos, SPEC §3.10, PaginaProdutos) and changing one (PATCH /operacao/produtos/{sku},
// PaginaEditarProduto) take the price, the minimum and the ideal the same way, send them the
// same way and say the outcome in one place. The page brings what only it has (the SKU and the
// name when registering, whether the shopper sees it when changing), the request and its words.
//
// The fields are kept as typed and checked by the API (`noValidate`): its 400 names the field
// in the spec's words, shown as it comes. Any change to a field clears the last outcome.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { ErroApi } from './api';

/** The fields both forms have, as typed. */
export interface CamposProduto {
  preco: string;
  estoqueMinimo: string;
  estoqueIdeal: string;
}

/** The shared fields, in the forms' order: each is its input's id and the API's name. */
const CAMPOS = [
  { k: 'preco', rotulo: 'Preço (R$)', inputMode: 'decimal' },
  { k: 'estoqueMinimo', rotulo: 'Estoque mínimo', type: 'number' },
  { k: 'estoqueIdeal', rotulo: 'Estoque ideal', type: 'number' },
] as const;

/** A price as typed, with a decimal comma or point (`12,50`, `12.50`), as a number. */
export const numeroPreco = (s: string) => Number(s.replace(',', '.'));

export interface OpcoesFormProduto<C extends CamposProduto, V, R> {
  inicial: C;
  /** The request, with what the page hands to `enviar`. */
  salvar: (v: V) => Promise<R>;
  /** What to say once saved, from the answer and what was sent. */
  mensagem: (r: R, v: V) => string;
  /** Empty the form once saved (a registration), or keep what was saved (a change). */
  esvaziar?: boolean;
}

/** The form's state as FormProduto reads it; a page's form with more fields fits. */
export interface EstadoFormProduto {
  campos: CamposProduto;
  mudar(novo: Partial<CamposProduto>): void;
  feito: string | null;
  enviando: boolean;
  erro: Error | null;
}

/** The fields, the request and its outcome; a saved product refreshes the products' list. */
export function useFormProduto<C extends CamposProduto, V, R>(o: OpcoesFormProduto<C, V, R>) {
  const cliente = useQueryClient();
  const [campos, setCampos] = useState(o.inicial);
  const [feito, setFeito] = useState<string | null>(null);
  const envio = useMutation({
    mutationFn: o.salvar,
    onSuccess: (r, v) => {
      setFeito(o.mensagem(r, v));
      if (o.esvaziar) setCampos(o.inicial);
      return cliente.invalidateQueries({ queryKey: ['operador', 'produtos'] });
    },
  });
  return {
    campos,
    feito,
    enviando: envio.isPending,
    erro: envio.error,
    mudar(novo: Partial<C>) {
      setFeito(null);
      envio.reset();
      setCampos({ ...campos, ...novo });
    },
    enviar(v: V) {
      setFeito(null);
      envio.mutate(v);
    },
  };
}

export interface PropsFormProduto {
  f: EstadoFormProduto;
  /** Names the heading's id (`titulo-…`) and the outcome's test ids (`…-erro`, `…-ok`). */
  nome: 'cadastro' | 'edicao';
  /** The section's id, for links to it. */
  idSecao?: string;
  titulo: string;
  /** Above the heading (the way back). */
  antes?: ReactNode;
  /** Under the heading (the product being changed). */
  resumo?: ReactNode;
  /** Fields before the price. */
  camposAntes?: ReactNode;
  /** Fields after the ideal. */
  camposDepois?: ReactNode;
  botao: string;
  botaoEnviando: string;
  /** False while there is nothing to send: the button stays off. */
  pronto?: boolean;
  /** The error when the API gives no words of its own. */
  erroPadrao: string;
  /** Under the form: what saving does. */
  nota: string;
  aoEnviar: () => void;
}

export function FormProduto({
  f,
  nome,
  idSecao,
  titulo,
  antes,
  resumo,
  camposAntes,
  camposDepois,
  botao,
  botaoEnviando,
  pronto = true,
  erroPadrao,
  nota,
  aoEnviar,
}: PropsFormProduto) {
  const erro = f.erro
    ? f.erro instanceof ErroApi && f.erro.detalhe
      ? f.erro.detalhe
      : erroPadrao
    : null;
  return (
    <section id={idSecao} className="cartao secao" aria-labelledby={`titulo-${nome}`}>
      {antes}
      <h2 id={`titulo-${nome}`} className="t-title">
        {titulo}
      </h2>
      {resumo}
      <form
        className="formulario-lote"
        onSubmit={(e) => {
          e.preventDefault();
          aoEnviar();
        }}
        noValidate
      >
        {camposAntes}
        {CAMPOS.map(({ k, rotulo, ...tipo }) => (
          <div className="campo" key={k}>
            <label htmlFor={k}>{rotulo}</label>
            <input
              id={k}
              {...tipo}
              value={f.campos[k]}
              onChange={(e) => f.mudar({ [k]: e.target.value })}
            />
          </div>
        ))}
        {camposDepois}
        <div className="formulario-acoes">
          <button type="submit" className="btn btn-primario" disabled={f.enviando || !pronto}>
            {f.enviando ? botaoEnviando : botao}
          </button>
        </div>
      </form>
      <div aria-live="polite">
        {erro && (
          <p className="aviso aviso-erro" role="alert" data-testid={`${nome}-erro`}>
            {erro}
          </p>
        )}
        {f.feito && (
          <p className="aviso aviso-ok" data-testid={`${nome}-ok`}>
            {f.feito}
          </p>
        )}
      </div>
      <p className="t-small muted">{nota}</p>
    </section>
  );
}
