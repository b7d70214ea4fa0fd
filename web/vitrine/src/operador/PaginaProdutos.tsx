// Registering a product in the storefront (POST /produtos, SPEC §3.10; the form is FormProduto,
// with the SKU looked up in estoque as it is typed) and the storefront as the operator sees it:
// shelf against minimum and ideal, status, the open restock request.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { formatarDinheiro, formatarNumero } from '../../../shared/formato';
import { Carregado } from '../../../shared/Operador';
import { Tabela } from '../../../shared/Tabela';
import { skuValido } from '../../../shared/sku';
import { useAtrasado } from '../../../shared/useAtrasado';
import { cadastrar, ErroApi, noEstoque, produtos, servico, type ProdutoOperador } from './api';
import { FormProduto, numeroPreco, useFormProduto } from './FormProduto';

/** The products table asks again this often: a new product's shelf fills by itself on screen. */
export const ATUALIZACAO_PRODUTOS_MS = 2000;

export function PaginaProdutos() {
  return (
    <>
      <FormularioProduto />
      <TabelaProdutos />
    </>
  );
}

const VAZIO = { sku: '', nome: '', preco: '', estoqueMinimo: '', estoqueIdeal: '' };

function FormularioProduto() {
  const f = useFormProduto({
    inicial: VAZIO,
    salvar: (c: typeof VAZIO) =>
      cadastrar({
        sku: c.sku.trim(),
        nome: c.nome,
        preco: numeroPreco(c.preco),
        estoqueMinimo: Number(c.estoqueMinimo),
        estoqueIdeal: Number(c.estoqueIdeal),
      }),
    mensagem: (_novo, c) =>
      `Produto ${c.nome.trim()} cadastrado. A reposição automática já pediu o primeiro lote ao estoque.`,
    esvaziar: true,
  });
  const { campos } = f;
  const sku = useAtrasado(campos.sku.trim());
  const consulta = useQuery({
    queryKey: ['operador', 'no-estoque', sku],
    queryFn: () => noEstoque(sku),
    enabled: skuValido(sku),
    retry: false,
    staleTime: 10_000,
  });

  let ajudaSku: { classe: string; texto: string } | null = null;
  if (campos.sku.trim() && !skuValido(campos.sku.trim())) {
    ajudaSku = { classe: 'ajuda-erro', texto: 'EAN-8 ou GTIN de 12 a 14 dígitos.' };
  } else if (skuValido(sku) && sku === campos.sku.trim()) {
    if (consulta.data) {
      const d = consulta.data;
      ajudaSku = {
        classe: 'ajuda-ok',
        texto: `No estoque: ${d.descricao ?? d.sku}${d.categoria ? ` · ${d.categoria}` : ''}`,
      };
    } else if (consulta.error instanceof ErroApi && consulta.error.status === 404) {
      ajudaSku = {
        classe: 'ajuda-erro',
        texto: consulta.error.detalhe ?? 'SKU desconhecido no estoque.',
      };
    } else if (consulta.error instanceof ErroApi && consulta.error.status === 503) {
      ajudaSku = {
        classe: 'ajuda-info',
        texto: consulta.error.detalhe ?? 'O estoque não respondeu.',
      };
    } else if (consulta.isError) {
      ajudaSku = { classe: 'ajuda-erro', texto: 'Não foi possível consultar o SKU no estoque.' };
    } else if (consulta.isFetching) {
      ajudaSku = { classe: 'muted', texto: 'Consultando o estoque…' };
    }
  }

  return (
    <FormProduto
      f={f}
      nome="cadastro"
      idSecao="cadastro"
      titulo="Cadastrar produto na vitrine"
      camposAntes={
        <>
          <div className="campo campo-sku">
            <label htmlFor="sku">SKU/EAN</label>
            <input
              id="sku"
              inputMode="numeric"
              autoComplete="off"
              className="mono"
              value={campos.sku}
              onChange={(e) => f.mudar({ sku: e.target.value })}
              aria-describedby="ajuda-sku"
            />
            <p
              id="ajuda-sku"
              className={`t-small ajuda ${ajudaSku?.classe ?? ''}`}
              aria-live="polite"
            >
              {ajudaSku?.texto ?? ''}
            </p>
          </div>
          <div className="campo campo-largo">
            <label htmlFor="nome">Nome na vitrine</label>
            <input
              id="nome"
              maxLength={255}
              value={campos.nome}
              onChange={(e) => f.mudar({ nome: e.target.value })}
            />
          </div>
        </>
      }
      botao="Cadastrar produto"
      botaoEnviando="Cadastrando…"
      erroPadrao="Não foi possível cadastrar o produto. Tente de novo."
      nota="O produto entra com a prateleira vazia; abaixo do mínimo, o Girô pede ao estoque o que falta até o ideal e a prateleira se enche sozinha."
      aoEnviar={() => f.enviar(campos)}
    />
  );
}

function reposicao(p: ProdutoOperador): string {
  const r = p.reposicaoAberta;
  if (!r) return '—';
  const qtd = `${formatarNumero(r.qtd)} un.`;
  return r.status === 'AGUARDANDO_LOTE'
    ? `${qtd} · aguardando lote no estoque`
    : `${qtd} · pedida ao estoque`;
}

function TabelaProdutos() {
  const q = useQuery({
    queryKey: ['operador', 'produtos'],
    queryFn: produtos,
    refetchInterval: ATUALIZACAO_PRODUTOS_MS,
  });
  return (
    <section id="produtos" className="cartao secao" aria-labelledby="titulo-produtos">
      <h2 id="titulo-produtos" className="t-title">
        Produtos da vitrine
      </h2>
      <Carregado q={q} servico={servico} vazio="Nenhum produto na vitrine ainda.">
        {(lista) => (
          // One row a product at 1280 px (the SKU under the name, the minimum and ideal under the
          // shelf), one card a product at 375 px: the rule of every operator table (issue 39).
          <Tabela
            className="tabela-cartoes tabela-produtos"
            colunas={[
              'Produto',
              { num: 'Preço' },
              { num: 'Prateleira' },
              'Status',
              'Reposição aberta',
              'Ações',
            ]}
          >
            {lista.map((p) => (
              <tr key={p.sku} data-sku={p.sku}>
                <td data-rotulo="Produto" className="produto-celula">
                  <span className="pilha">
                    <span className="produto-nome">{p.nome}</span>
                    <span className="t-caption muted mono">{p.sku}</span>
                  </span>
                </td>
                <td data-rotulo="Preço" className="num mono">
                  {formatarDinheiro(p.preco)}
                </td>
                <td data-rotulo="Prateleira" className="num">
                  <span className="pilha">
                    <span className="mono" data-testid="prateleira">
                      {formatarNumero(p.prateleira)}
                    </span>
                    <span className="t-caption muted prateleira-limites">
                      mín. {formatarNumero(p.estoqueMinimo)} · ideal{' '}
                      {formatarNumero(p.estoqueIdeal)}
                    </span>
                  </span>
                </td>
                <td data-rotulo="Status">
                  <span className="selos">
                    {!p.listado && <span className="selo selo-info">Fora da vitrine</span>}
                    {p.status === 'DISPONIVEL' ? (
                      <span className="selo selo-ok">Em estoque</span>
                    ) : (
                      <span className="selo selo-esgotado">Esgotado</span>
                    )}
                  </span>
                </td>
                <td data-rotulo="Reposição aberta" data-testid="reposicao">
                  {reposicao(p)}
                </td>
                <td data-rotulo="Ações">
                  <Link
                    to={`/produtos/${p.sku}`}
                    className="btn btn-contorno"
                    aria-label={`Editar ${p.nome}`}
                  >
                    Editar
                  </Link>
                </td>
              </tr>
            ))}
          </Tabela>
        )}
      </Carregado>
    </section>
  );
}
