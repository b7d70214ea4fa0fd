// Changing a product (issues 26 and 39, PATCH /operacao/produtos/{sku}): name, category,
// description, price, minimum, ideal and whether the shopper sees it. Only the fields changed are
// sent; a minimum raised above the shelf makes the server ask estoque for a restock in the same
// transaction, said here. The form is the registration's (FormProduto) with these fields more.
// The image has its own section and routes (PUT/DELETE …/imagem), sent as soon as it is chosen.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { formatarDinheiro, formatarNumero } from '../../../shared/formato';
import { ErroCarregamento } from '../../../shared/Operador';
import { CATEGORIAS, rotuloCategoria } from '../categorias';
import {
  alterarProduto,
  enviarImagem,
  ErroApi,
  IMAGEM_MAX,
  noEstoque,
  produtos,
  removerImagem,
  servico,
  TIPOS_IMAGEM,
  type AlteracaoProduto,
  type ProdutoOperador,
} from './api';
import { FormProduto, numeroPreco, useFormProduto, type CamposProduto } from './FormProduto';

/** The form's fields: the shared ones and whether the shopper sees the product. */
export interface CamposEdicao extends CamposProduto {
  listado: boolean;
  nome: string;
  /** '' while the product has none and none is chosen. */
  categoria: string;
  descricao: string;
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
  return (
    <>
      <FormularioEdicao key={p.sku} p={p} />
      <ImagemProduto p={p} />
    </>
  );
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
  // A blank name is sent as typed: the API's 400 says what is wrong.
  if (campos.nome.trim() !== p.nome) a.nome = campos.nome;
  if (campos.categoria && campos.categoria !== p.categoria) a.categoria = campos.categoria;
  if (campos.descricao.trim() !== (p.descricao ?? '')) a.descricao = campos.descricao;
  return Object.keys(a).length ? a : undefined;
}

function FormularioEdicao({ p }: { p: ProdutoOperador }) {
  const f = useFormProduto({
    inicial: {
      preco: String(p.preco).replace('.', ','),
      estoqueMinimo: String(p.estoqueMinimo),
      estoqueIdeal: String(p.estoqueIdeal),
      listado: p.listado,
      nome: p.nome,
      categoria: p.categoria ?? '',
      descricao: p.descricao ?? '',
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
  // Issue 39 §6: the warehouse names the product as its invoice does and knows it by SKU only;
  // shown beside the storefront's name so the owner sees they are one product (SPEC §6.3).
  const estoque = useQuery({
    queryKey: ['operador', 'no-estoque', p.sku],
    queryFn: () => noEstoque(p.sku),
    retry: false,
    staleTime: 60_000,
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
      camposAntes={
        <>
          <div className="campo campo-largo">
            <label htmlFor="nome">Nome</label>
            <input
              id="nome"
              value={f.campos.nome}
              maxLength={255}
              onChange={(e) => f.mudar({ nome: e.target.value })}
              aria-describedby="nome-no-estoque"
            />
            <p id="nome-no-estoque" className="t-small muted ajuda">
              {estoque.data?.descricao ? `No estoque: ${estoque.data.descricao}` : ''}
            </p>
          </div>
          <div className="campo">
            <label htmlFor="categoria">Categoria</label>
            <select
              id="categoria"
              value={f.campos.categoria}
              onChange={(e) => f.mudar({ categoria: e.target.value })}
            >
              {!p.categoria && <option value="">Sem categoria</option>}
              {[...new Set([...CATEGORIAS, ...(p.categoria ? [p.categoria] : [])])].map((c) => (
                <option key={c} value={c}>
                  {rotuloCategoria(c)}
                </option>
              ))}
            </select>
          </div>
          <div className="campo campo-inteiro">
            <label htmlFor="descricao">Descrição</label>
            <textarea
              id="descricao"
              rows={4}
              maxLength={DESCRICAO_MAX}
              value={f.campos.descricao}
              onChange={(e) => f.mudar({ descricao: e.target.value })}
            />
            <span className="ajuda">
              Aparece na página do produto na vitrine. {f.campos.descricao.length}/{DESCRICAO_MAX}
            </span>
          </div>
        </>
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
      nota="O novo preço vale para os próximos pedidos. Com o mínimo acima da prateleira, o Girô pede ao estoque o que falta até o ideal. O nome e a descrição são os da vitrine: o estoque segue com a descrição do cadastro dele."
      aoEnviar={enviar}
    />
  );
}

/** The longest description the API takes (SPEC §6.3.1). */
const DESCRICAO_MAX = 2000;

/** The product's image: sent as soon as it is chosen, checked here first for type and size. */
function ImagemProduto({ p }: { p: ProdutoOperador }) {
  const cliente = useQueryClient();
  const [aviso, setAviso] = useState<{ ok: boolean; texto: string } | null>(null);
  const envio = useMutation({
    mutationFn: (arquivo: File | null) =>
      arquivo ? enviarImagem(p.sku, arquivo) : removerImagem(p.sku),
    onSuccess: (_r, arquivo) => {
      setAviso({
        ok: true,
        texto: arquivo
          ? 'Imagem salva: a vitrine já mostra a nova imagem.'
          : 'Imagem removida: a vitrine volta a mostrar as iniciais do produto.',
      });
      return cliente.invalidateQueries({ queryKey: ['operador', 'produtos'] });
    },
    onError: (e) =>
      setAviso({
        ok: false,
        texto:
          e instanceof ErroApi && e.detalhe
            ? e.detalhe
            : 'Não foi possível salvar a imagem. Tente de novo.',
      }),
  });
  function escolher(arquivo: File | undefined) {
    if (!arquivo) return;
    if (!TIPOS_IMAGEM.includes(arquivo.type))
      return setAviso({ ok: false, texto: 'Escolha uma imagem JPEG, PNG ou WebP.' });
    if (arquivo.size > IMAGEM_MAX)
      return setAviso({
        ok: false,
        texto: `A imagem tem ${(arquivo.size / IMAGEM_MAX).toFixed(1).replace('.', ',')} MB; o máximo é 1 MB.`,
      });
    setAviso(null);
    envio.mutate(arquivo);
  }
  return (
    <section className="cartao secao" aria-labelledby="titulo-imagem">
      <h2 id="titulo-imagem" className="t-title">
        Imagem
      </h2>
      <div className="imagem-produto">
        {p.imagem ? (
          <img src={`/api${p.imagem}`} alt={`Imagem de ${p.nome}`} className="imagem-previa" />
        ) : (
          <p className="t-small muted imagem-previa imagem-vazia">
            Sem imagem: a vitrine mostra as iniciais do produto.
          </p>
        )}
        <div className="imagem-acoes">
          {/* The native input's words are the browser's (English in an English browser): a
              label styled as a button says it in pt-BR, and the input keeps the keyboard. */}
          <div className="campo-arquivo">
            <input
              id="imagem"
              type="file"
              className="sr-only"
              accept={TIPOS_IMAGEM.join(',')}
              disabled={envio.isPending}
              onChange={(e) => {
                escolher(e.target.files?.[0]);
                e.target.value = '';
              }}
            />
            <label htmlFor="imagem" className="btn btn-primario">
              {p.imagem ? 'Trocar imagem' : 'Enviar imagem'}
            </label>
          </div>
          {p.imagem && (
            <button
              type="button"
              className="btn btn-contorno"
              disabled={envio.isPending}
              onClick={() => envio.mutate(null)}
            >
              Remover imagem
            </button>
          )}
        </div>
      </div>
      <div aria-live="polite">
        {envio.isPending && <p className="t-small muted">Enviando…</p>}
        {aviso && (
          <p
            className={`aviso ${aviso.ok ? 'aviso-ok' : 'aviso-erro'}`}
            role={aviso.ok ? undefined : 'alert'}
            data-testid={aviso.ok ? 'imagem-ok' : 'imagem-erro'}
          >
            {aviso.texto}
          </p>
        )}
      </div>
      <p className="t-small muted">
        JPEG, PNG ou WebP de até 1 MB. Na vitrine, a imagem aparece inteira num quadro 4:3; sem
        imagem, aparecem as iniciais do produto.
      </p>
    </section>
  );
}
