// Changing a product (issue 26, PATCH /operacao/produtos/{sku}): price, minimum, ideal and
// whether the shopper sees it. Only the fields changed are sent; a minimum raised above the
// shelf makes the server ask estoque for a restock in the same transaction, said here. The
// form is the registration's (FormProduto) with one field more, `listado`.
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { formatarDinheiro, formatarNumero } from '../../../shared/formato';
import { ErroCarregamento } from '../../../shared/Operador';
import {
  alterarProduto,
  produtos,
  servico,
  type AlteracaoProduto,
  type ProdutoOperador,
} from './api';
import { FormProduto, numeroPreco, useFormProduto, type CamposProduto } from './FormProduto';

/** The form's fields: the shared ones and whether the shopper sees the product. */
export interface CamposEdicao extends CamposProduto {
  listado: boolean;
}

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
export function alteracao(p: ProdutoOperador, campos: CamposEdicao): AlteracaoProduto | undefined {
  const a: AlteracaoProduto = {};
  const preco = numeroPreco(campos.preco);
  if (campos.preco.trim() !== '' && preco !== p.preco) a.preco = preco;
  const minimo = Number(campos.estoqueMinimo);
  if (campos.estoqueMinimo.trim() !== '' && minimo !== p.estoqueMinimo) a.estoqueMinimo = minimo;
  const ideal = Number(campos.estoqueIdeal);
  if (campos.estoqueIdeal.trim() !== '' && ideal !== p.estoqueIdeal) a.estoqueIdeal = ideal;
  if (campos.listado !== p.listado) a.listado = campos.listado;
  return Object.keys(a).length ? a : undefined;
}

function FormularioEdicao({ p }: { p: ProdutoOperador }) {
  const f = useFormProduto({
    inicial: {
      preco: String(p.preco).replace('.', ','),
      estoqueMinimo: String(p.estoqueMinimo),
      estoqueIdeal: String(p.estoqueIdeal),
      listado: p.listado,
    },
    salvar: (a: AlteracaoProduto) => alterarProduto(p.sku, a),
    mensagem: (novo) => {
      const partes = ['Alterações salvas.'];
      if (novo.reposicaoAberta && !p.reposicaoAberta)
        partes.push(
          `A prateleira ficou abaixo do novo mínimo: a reposição automática pediu ${formatarNumero(novo.reposicaoAberta.qtd)} un. ao estoque.`,
        );
      if (!novo.listado && p.listado) partes.push('O produto saiu da vitrine.');
      if (novo.listado && !p.listado) partes.push('O produto voltou para a vitrine.');
      return partes.join(' ');
    },
  });
  const mudancas = alteracao(p, f.campos);
  function enviar() {
    if (!mudancas) return;
    if (
      mudancas.listado === false &&
      !window.confirm(
        `Tirar ${p.nome} da vitrine? Quem tiver o produto no carrinho não poderá comprá-lo.`,
      )
    )
      return;
    f.enviar(mudancas);
  }

  return (
    <FormProduto
      f={f}
      nome="edicao"
      titulo={`Editar ${p.nome}`}
      antes={
        <p className="t-small">
          <Link to="/">← Produtos</Link>
        </p>
      }
      resumo={
        <p className="t-small muted">
          SKU/EAN <span className="mono">{p.sku}</span> · prateleira {formatarNumero(p.prateleira)}{' '}
          · preço atual {formatarDinheiro(p.preco)}
        </p>
      }
      camposDepois={
        <div className="campo campo-marcar">
          <input
            id="listado"
            type="checkbox"
            checked={f.campos.listado}
            onChange={(e) => f.mudar({ listado: e.target.checked })}
          />
          <label htmlFor="listado">À venda na vitrine</label>
        </div>
      }
      botao="Salvar alterações"
      botaoEnviando="Salvando…"
      pronto={mudancas !== undefined}
      erroPadrao="Não foi possível salvar. Tente de novo."
      nota="O novo preço vale para os próximos pedidos. Com o mínimo acima da prateleira, o Girô pede ao estoque o que falta até o ideal."
      aoEnviar={enviar}
    />
  );
}
