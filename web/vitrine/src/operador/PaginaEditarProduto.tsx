// Changing a product (issue 26, PATCH /operacao/produtos/{sku}): price, minimum, ideal and
// whether the shopper sees it. Only the fields changed are sent; a minimum raised above the
// shelf makes the server ask estoque for a restock in the same transaction, said here.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { formatarDinheiro, formatarNumero } from '../../../shared/formato';
import { ErroCarregamento } from '../../../shared/Operador';
import {
  alterarProduto,
  ErroApi,
  produtos,
  servico,
  type AlteracaoProduto,
  type ProdutoOperador,
} from './api';

export function PaginaEditarProduto() {
  const { sku = '' } = useParams();
  const q = useQuery({ queryKey: ['operador', 'produtos'], queryFn: produtos });
  if (q.isError && !q.data)
    return <ErroCarregamento servico={servico} erro={q.error} aoTentar={() => q.refetch()} />;
  if (!q.data) return <p className="muted">Carregando…</p>;
  const p = q.data.find((x) => x.sku === sku);
  if (!p)
    return (
      <section className="cartao secao">
        <p className="aviso aviso-erro" role="alert">
          Produto {sku} não está na vitrine. <Link to="/">Voltar aos produtos</Link>.
        </p>
      </section>
    );
  return <FormularioEdicao key={p.sku} p={p} />;
}

/** What changed between the product and the form, as the PATCH body (undefined: nothing). */
export function alteracao(
  p: ProdutoOperador,
  campos: { preco: string; estoqueMinimo: string; estoqueIdeal: string; listado: boolean },
): AlteracaoProduto | undefined {
  const a: AlteracaoProduto = {};
  const preco = Number(campos.preco.replace(',', '.'));
  if (campos.preco.trim() !== '' && preco !== p.preco) a.preco = preco;
  const minimo = Number(campos.estoqueMinimo);
  if (campos.estoqueMinimo.trim() !== '' && minimo !== p.estoqueMinimo) a.estoqueMinimo = minimo;
  const ideal = Number(campos.estoqueIdeal);
  if (campos.estoqueIdeal.trim() !== '' && ideal !== p.estoqueIdeal) a.estoqueIdeal = ideal;
  if (campos.listado !== p.listado) a.listado = campos.listado;
  return Object.keys(a).length ? a : undefined;
}

function FormularioEdicao({ p }: { p: ProdutoOperador }) {
  const cliente = useQueryClient();
  const inicial = {
    preco: String(p.preco).replace('.', ','),
    estoqueMinimo: String(p.estoqueMinimo),
    estoqueIdeal: String(p.estoqueIdeal),
    listado: p.listado,
  };
  const [campos, setCampos] = useState(inicial);
  const [feito, setFeito] = useState<string | null>(null);
  const mudancas = alteracao(p, campos);
  const envio = useMutation({
    mutationFn: (a: AlteracaoProduto) => alterarProduto(p.sku, a),
    onSuccess: (novo) => {
      const partes = ['Alterações salvas.'];
      if (novo.reposicaoAberta && !p.reposicaoAberta)
        partes.push(
          `A prateleira ficou abaixo do novo mínimo: a reposição automática pediu ${formatarNumero(novo.reposicaoAberta.qtd)} un. ao estoque.`,
        );
      if (!novo.listado && p.listado) partes.push('O produto saiu da vitrine.');
      if (novo.listado && !p.listado) partes.push('O produto voltou para a vitrine.');
      setFeito(partes.join(' '));
      return cliente.invalidateQueries({ queryKey: ['operador', 'produtos'] });
    },
  });
  const mudar =
    (k: 'preco' | 'estoqueMinimo' | 'estoqueIdeal') => (e: { target: { value: string } }) => {
      setFeito(null);
      envio.reset();
      setCampos({ ...campos, [k]: e.target.value });
    };
  function enviar(e: FormEvent) {
    e.preventDefault();
    if (!mudancas) return;
    if (
      mudancas.listado === false &&
      !window.confirm(
        `Tirar ${p.nome} da vitrine? Quem tiver o produto no carrinho não poderá comprá-lo.`,
      )
    )
      return;
    setFeito(null);
    envio.mutate(mudancas);
  }
  const erro = envio.error
    ? envio.error instanceof ErroApi && envio.error.detalhe
      ? envio.error.detalhe
      : 'Não foi possível salvar. Tente de novo.'
    : null;

  return (
    <section className="cartao secao" aria-labelledby="titulo-edicao">
      <p className="t-small">
        <Link to="/">← Produtos</Link>
      </p>
      <h2 id="titulo-edicao" className="t-title">
        Editar {p.nome}
      </h2>
      <p className="t-small muted">
        SKU/EAN <span className="mono">{p.sku}</span> · prateleira {formatarNumero(p.prateleira)} ·
        preço atual {formatarDinheiro(p.preco)}
      </p>
      <form className="formulario-lote" onSubmit={enviar} noValidate>
        <div className="campo">
          <label htmlFor="preco">Preço (R$)</label>
          <input id="preco" inputMode="decimal" value={campos.preco} onChange={mudar('preco')} />
        </div>
        <div className="campo">
          <label htmlFor="estoqueMinimo">Estoque mínimo</label>
          <input
            id="estoqueMinimo"
            type="number"
            value={campos.estoqueMinimo}
            onChange={mudar('estoqueMinimo')}
          />
        </div>
        <div className="campo">
          <label htmlFor="estoqueIdeal">Estoque ideal</label>
          <input
            id="estoqueIdeal"
            type="number"
            value={campos.estoqueIdeal}
            onChange={mudar('estoqueIdeal')}
          />
        </div>
        <div className="campo campo-marcar">
          <input
            id="listado"
            type="checkbox"
            checked={campos.listado}
            onChange={(e) => {
              setFeito(null);
              envio.reset();
              setCampos({ ...campos, listado: e.target.checked });
            }}
          />
          <label htmlFor="listado">À venda na vitrine</label>
        </div>
        <div className="formulario-acoes">
          <button
            type="submit"
            className="btn btn-primario"
            disabled={envio.isPending || !mudancas}
          >
            {envio.isPending ? 'Salvando…' : 'Salvar alterações'}
          </button>
        </div>
      </form>
      <div aria-live="polite">
        {erro && (
          <p className="aviso aviso-erro" role="alert" data-testid="edicao-erro">
            {erro}
          </p>
        )}
        {feito && (
          <p className="aviso aviso-ok" data-testid="edicao-ok">
            {feito}
          </p>
        )}
      </div>
      <p className="t-small muted">
        O novo preço vale para os próximos pedidos. Com o mínimo acima da prateleira, o Girô pede ao
        estoque o que falta até o ideal.
      </p>
    </section>
  );
}
