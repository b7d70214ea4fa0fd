// Registering a product in the storefront (POST /produtos, SPEC §3.10) and the storefront as the
// operator sees it: shelf against minimum and ideal, status, the open restock request.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { formatarDinheiro, formatarNumero } from '../../../shared/formato';
import { ErroCarregamento } from '../../../shared/Operador';
import { skuValido } from '../../../shared/sku';
import { cadastrar, ErroApi, noEstoque, produtos, servico, type ProdutoOperador } from './api';

/** The products table asks again this often: a new product's shelf fills by itself on screen. */
export const ATUALIZACAO_PRODUTOS_MS = 2000;

function useAtrasado<T>(valor: T, ms = 300): T {
  const [atrasado, setAtrasado] = useState(valor);
  useEffect(() => {
    const t = setTimeout(() => setAtrasado(valor), ms);
    return () => clearTimeout(t);
  }, [valor, ms]);
  return atrasado;
}

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
  const cliente = useQueryClient();
  const [campos, setCampos] = useState(VAZIO);
  const [feito, setFeito] = useState<string | null>(null);
  const sku = useAtrasado(campos.sku.trim());
  const consulta = useQuery({
    queryKey: ['operador', 'no-estoque', sku],
    queryFn: () => noEstoque(sku),
    enabled: skuValido(sku),
    retry: false,
    staleTime: 10_000,
  });
  const envio = useMutation({
    mutationFn: () =>
      cadastrar({
        sku: campos.sku.trim(),
        nome: campos.nome,
        preco: Number(campos.preco.replace(',', '.')),
        estoqueMinimo: Number(campos.estoqueMinimo),
        estoqueIdeal: Number(campos.estoqueIdeal),
      }),
    onSuccess: () => {
      setFeito(
        `Produto ${campos.nome.trim()} cadastrado. A reposição automática já pediu o primeiro lote ao estoque.`,
      );
      setCampos(VAZIO);
      return cliente.invalidateQueries({ queryKey: ['operador', 'produtos'] });
    },
  });

  const mudar = (k: keyof typeof VAZIO) => (e: { target: { value: string } }) => {
    setFeito(null);
    envio.reset();
    setCampos({ ...campos, [k]: e.target.value });
  };

  function enviar(e: FormEvent) {
    e.preventDefault();
    setFeito(null);
    envio.mutate();
  }

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

  const erro = envio.error
    ? envio.error instanceof ErroApi && envio.error.detalhe
      ? envio.error.detalhe
      : 'Não foi possível cadastrar o produto. Tente de novo.'
    : null;

  return (
    <section id="cadastro" className="cartao secao" aria-labelledby="titulo-cadastro">
      <h2 id="titulo-cadastro" className="t-title">
        Cadastrar produto na vitrine
      </h2>
      <form className="formulario-lote" onSubmit={enviar} noValidate>
        <div className="campo campo-sku">
          <label htmlFor="sku">SKU/EAN</label>
          <input
            id="sku"
            inputMode="numeric"
            autoComplete="off"
            className="mono"
            value={campos.sku}
            onChange={mudar('sku')}
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
          <input id="nome" maxLength={255} value={campos.nome} onChange={mudar('nome')} />
        </div>
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
        <div className="formulario-acoes">
          <button type="submit" className="btn btn-primario" disabled={envio.isPending}>
            {envio.isPending ? 'Cadastrando…' : 'Cadastrar produto'}
          </button>
        </div>
      </form>
      <div aria-live="polite">
        {erro && (
          <p className="aviso aviso-erro" role="alert" data-testid="cadastro-erro">
            {erro}
          </p>
        )}
        {feito && (
          <p className="aviso aviso-ok" data-testid="cadastro-ok">
            {feito}
          </p>
        )}
      </div>
      <p className="t-small muted">
        O produto entra com a prateleira vazia; abaixo do mínimo, o Girô pede ao estoque o que falta
        até o ideal e a prateleira se enche sozinha.
      </p>
    </section>
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
      {q.isError && !q.data ? (
        <ErroCarregamento servico={servico} erro={q.error} aoTentar={() => q.refetch()} />
      ) : !q.data ? (
        <p className="muted">Carregando…</p>
      ) : q.data.length === 0 ? (
        <p className="muted vazio">Nenhum produto na vitrine ainda.</p>
      ) : (
        <div className="tabela-rolagem">
          <table>
            <thead>
              <tr>
                <th scope="col">SKU</th>
                <th scope="col">Produto</th>
                <th scope="col" className="num">
                  Preço
                </th>
                <th scope="col" className="num">
                  Prateleira
                </th>
                <th scope="col">Mín. / ideal</th>
                <th scope="col">Status</th>
                <th scope="col">Reposição aberta</th>
                {/* Visible text: an absolutely placed screen-reader label would escape the
                    table's scroll box and widen the page at 375 px. */}
                <th scope="col">Ações</th>
              </tr>
            </thead>
            <tbody>
              {q.data.map((p) => (
                <tr key={p.sku} data-sku={p.sku}>
                  <td className="mono">{p.sku}</td>
                  <td>{p.nome}</td>
                  <td className="num mono">{formatarDinheiro(p.preco)}</td>
                  <td className="num mono" data-testid="prateleira">
                    {formatarNumero(p.prateleira)}
                  </td>
                  <td className="mono">
                    {formatarNumero(p.estoqueMinimo)} / {formatarNumero(p.estoqueIdeal)}
                  </td>
                  <td>
                    {!p.listado && <span className="selo selo-info">Fora da vitrine</span>}{' '}
                    {p.status === 'DISPONIVEL' ? (
                      <span className="selo selo-ok">Em estoque</span>
                    ) : (
                      <span className="selo selo-esgotado">Esgotado</span>
                    )}
                  </td>
                  <td data-testid="reposicao">{reposicao(p)}</td>
                  <td>
                    <Link to={`/produtos/${p.sku}`} aria-label={`Editar ${p.nome}`}>
                      Editar
                    </Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
