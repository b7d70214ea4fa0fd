// The inventory (SPEC §6.2.1): the list of SKUs with their valid and expired balance, filtered by
// text and state (the KPIs link here filtered), and one SKU's page: its lots in FEFO order, the
// write-off of some or all units of a lot for a reason (issue 39), and its history: who and when.

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Fragment, useState, type FormEvent } from 'react';
import { dataHora, formatarNumero } from '../../../shared/formato';
import { CampoFiltro } from '../../../shared/Filtro';
import { Carregado } from '../../../shared/Operador';
import { Tabela } from '../../../shared/Tabela';
import {
  baixarLote,
  ErroApi,
  inventario,
  inventarioSku,
  servico,
  type EstadoSku,
  type FiltroEstado,
  type FiltroInventario,
  type LoteInventario,
  type MotivoBaixa,
  type Movimento,
} from '../api';
import { ATUALIZACAO_MS } from '../consultas';
import {
  formatarData,
  mensagemBaixa,
  quantidadeBaixa,
  ROTULO_ESTADO,
  ROTULO_MOTIVO,
  ROTULO_MOVIMENTO,
  unidades,
  vazioEstoque,
} from '../mensagens';
import { ESTADOS, hrefEstoque, hrefSku } from '../rota';

const CLASSE_ESTADO: Record<EstadoSku, string> = {
  'com-saldo': 'selo selo-ok',
  'so-vencido': 'selo selo-alerta',
  zerado: 'selo selo-esgotado',
};

function irPara(hash: string) {
  window.location.hash = hash;
}

export function PaginaEstoque({ filtro }: { filtro: FiltroInventario }) {
  const [busca, setBusca] = useState(filtro.busca ?? '');
  const q = useQuery({
    queryKey: ['painel', 'estoque', filtro],
    queryFn: () => inventario(filtro),
    refetchInterval: ATUALIZACAO_MS,
  });
  const paginas = q.data ? Math.max(1, Math.ceil(q.data.total / q.data.tamanho)) : 1;
  const pagina = filtro.pagina ?? 1;

  function buscar(e: FormEvent) {
    e.preventDefault();
    irPara(hrefEstoque({ ...filtro, busca, pagina: 1 }));
  }

  return (
    <section id="estoque" className="cartao secao" aria-labelledby="titulo-estoque">
      <div className="secao-cabecalho">
        <h2 id="titulo-estoque" className="t-title">
          Estoque
        </h2>
        {q.data && (
          <p className="t-small muted subtitulo" data-testid="estoque-total">
            {q.data.total === 1 ? '1 SKU' : `${formatarNumero(q.data.total)} SKUs`}
          </p>
        )}
      </div>
      <form className="filtros-estoque" role="search" onSubmit={buscar}>
        <div className="campo">
          <label htmlFor="estoque-busca">Buscar</label>
          <input
            id="estoque-busca"
            type="search"
            maxLength={100}
            placeholder="Descrição ou SKU"
            value={busca}
            onChange={(e) => setBusca(e.target.value)}
          />
        </div>
        <CampoFiltro
          id="estoque-estado"
          rotulo="Situação"
          todos="Todas"
          valor={filtro.estado ?? ''}
          opcoes={ESTADOS}
          rotuloDe={(s) => ROTULO_ESTADO[s]}
          aoMudar={(v) =>
            irPara(
              hrefEstoque({
                ...filtro,
                estado: (v || undefined) as FiltroEstado | undefined,
                pagina: 1,
              }),
            )
          }
        />
        <button type="submit" className="btn btn-secundario">
          Buscar
        </button>
      </form>
      <Carregado q={q} servico={servico}>
        {(d) =>
          d.itens.length === 0 ? (
            <p className="muted vazio">{vazioEstoque(filtro.busca, filtro.estado)}</p>
          ) : (
            <>
              <Tabela
                className="tabela-cartoes"
                colunas={[
                  'SKU',
                  'Produto',
                  'Situação',
                  { num: 'Saldo válido' },
                  { num: 'Vencido' },
                  { num: 'Demanda' },
                  'Próxima validade',
                ]}
              >
                {d.itens.map((i) => (
                  <tr key={i.sku} data-sku={i.sku} data-estado={i.estado}>
                    <td className="mono" data-rotulo="SKU">
                      <a href={hrefSku(i.sku)}>{i.sku}</a>
                    </td>
                    <td data-rotulo="Produto">{i.descricao}</td>
                    <td data-rotulo="Situação">
                      <span className={CLASSE_ESTADO[i.estado]}>{ROTULO_ESTADO[i.estado]}</span>
                    </td>
                    <td className="num mono" data-rotulo="Saldo válido">
                      {formatarNumero(i.saldoValido)}
                    </td>
                    <td className="num mono" data-rotulo="Vencido">
                      {formatarNumero(i.saldoVencido)}
                    </td>
                    <td className="num mono" data-rotulo="Demanda">
                      {formatarNumero(i.demandaAberta)}
                    </td>
                    <td data-rotulo="Próxima validade">
                      {i.proximaValidade ? formatarData(i.proximaValidade) : '—'}
                    </td>
                  </tr>
                ))}
              </Tabela>
              {paginas > 1 && (
                <nav className="paginacao" aria-label="Páginas do estoque">
                  <a
                    className="btn btn-contorno"
                    aria-disabled={pagina <= 1}
                    href={pagina <= 1 ? undefined : hrefEstoque({ ...filtro, pagina: pagina - 1 })}
                  >
                    Anterior
                  </a>
                  <span className="t-small">
                    Página {pagina} de {paginas}
                  </span>
                  <a
                    className="btn btn-contorno"
                    aria-disabled={pagina >= paginas}
                    href={
                      pagina >= paginas ? undefined : hrefEstoque({ ...filtro, pagina: pagina + 1 })
                    }
                  >
                    Próxima
                  </a>
                </nav>
              )}
            </>
          )
        }
      </Carregado>
    </section>
  );
}

export function PaginaSku({ sku }: { sku: string }) {
  const cliente = useQueryClient();
  const [confirmando, setConfirmando] = useState<LoteInventario | null>(null);
  const [aviso, setAviso] = useState<{ tipo: 'ok' | 'erro'; texto: string } | null>(null);
  const q = useQuery({
    queryKey: ['painel', 'estoque', 'sku', sku],
    queryFn: () => inventarioSku(sku),
    refetchInterval: ATUALIZACAO_MS,
  });
  const baixa = useMutation({
    mutationFn: (b: { lote: string; quantidade: number; motivo: MotivoBaixa; visto: number }) =>
      baixarLote(sku, b.lote, b.quantidade, b.motivo, b.visto),
    onSuccess: (b) => {
      setAviso({ tipo: 'ok', texto: mensagemBaixa(b) });
      setConfirmando(null);
      void cliente.invalidateQueries({ queryKey: ['painel'] });
    },
    // The form stays open with what was typed: the detail says what to change, and the lots are
    // read again (a 409 may say the lot changed meanwhile).
    onError: (e) => {
      setAviso({
        tipo: 'erro',
        texto:
          (e instanceof ErroApi && e.detalhe) ||
          'Não foi possível dar baixa no lote. Tente de novo.',
      });
      void cliente.invalidateQueries({ queryKey: ['painel'] });
    },
  });
  const naoExiste = q.error instanceof ErroApi && q.error.status === 404;
  const proximo = q.data?.lotes.find((l) => !l.vencido)?.codigoLote;

  return (
    <section id="estoque-sku" className="cartao secao" aria-labelledby="titulo-sku">
      <a className="voltar t-small" href={hrefEstoque()}>
        ← Estoque
      </a>
      {naoExiste ? (
        <>
          <h2 id="titulo-sku" className="t-title">
            SKU <span className="mono">{sku}</span>
          </h2>
          <p className="muted">{q.error instanceof ErroApi ? q.error.detalhe : null}</p>
        </>
      ) : (
        <Carregado q={q} servico={servico}>
          {(d) => (
            <>
              <div className="secao-cabecalho">
                <h2 id="titulo-sku" className="t-title">
                  {d.descricao}
                </h2>
                <span className="mono t-small muted">SKU {d.sku}</span>
                <span className={CLASSE_ESTADO[d.estado]}>{ROTULO_ESTADO[d.estado]}</span>
              </div>
              <dl className="saldos-sku">
                <div>
                  <dt className="t-small muted">Saldo válido</dt>
                  <dd data-testid="sku-saldo-valido">{formatarNumero(d.saldoValido)}</dd>
                </div>
                <div>
                  <dt className="t-small muted">Vencido</dt>
                  <dd data-testid="sku-saldo-vencido">{formatarNumero(d.saldoVencido)}</dd>
                </div>
                <div>
                  <dt className="t-small muted">Demanda reprimida</dt>
                  <dd>{formatarNumero(d.demandaAberta)}</dd>
                </div>
              </dl>
              <p aria-live="polite" className={aviso ? `ajuda ajuda-${aviso.tipo}` : 'ajuda'}>
                {aviso?.texto}
              </p>
              <h3 className="t-label">Lotes (ordem de saída)</h3>
              {d.lotes.length === 0 ? (
                <p className="muted vazio">Nenhum lote com unidades.</p>
              ) : (
                <Tabela
                  className="tabela-cartoes"
                  colunas={[
                    'Lote',
                    'Validade',
                    'Situação',
                    { num: 'Disponível' },
                    'Entrada',
                    'Ações',
                  ]}
                >
                  {d.lotes.map((l) => (
                    <Fragment key={l.codigoLote}>
                      <tr data-lote={l.codigoLote} data-vencido={l.vencido}>
                        <td className="mono" data-rotulo="Lote">
                          {l.codigoLote}
                        </td>
                        <td data-rotulo="Validade">
                          {l.validade ? formatarData(l.validade) : 'Sem validade'}
                        </td>
                        <td data-rotulo="Situação">
                          {l.vencido ? (
                            <span className="selo selo-esgotado">Vencido</span>
                          ) : l.codigoLote === proximo ? (
                            <span className="selo selo-info">Próximo a sair</span>
                          ) : (
                            <span className="selo selo-ok">Válido</span>
                          )}
                        </td>
                        <td className="num mono" data-rotulo="Disponível">
                          {formatarNumero(l.quantidadeDisponivel)} de {formatarNumero(l.quantidade)}
                        </td>
                        <td data-rotulo="Entrada">
                          <time dateTime={l.recebidoEm}>{dataHora(l.recebidoEm)}</time>
                        </td>
                        <td data-rotulo="Ações" className="lote-acoes">
                          <button
                            type="button"
                            className="btn btn-contorno"
                            disabled={baixa.isPending || confirmando?.codigoLote === l.codigoLote}
                            onClick={() => {
                              setAviso(null);
                              setConfirmando(l);
                            }}
                          >
                            Dar baixa
                          </button>
                        </td>
                      </tr>
                      {confirmando?.codigoLote === l.codigoLote && (
                        <tr className="linha-baixa">
                          <td colSpan={6}>
                            <FormBaixa
                              lote={l}
                              enviando={baixa.isPending}
                              aoConfirmar={(quantidade, motivo) =>
                                baixa.mutate({
                                  lote: l.codigoLote,
                                  quantidade,
                                  motivo,
                                  visto: l.quantidadeDisponivel,
                                })
                              }
                              aoCancelar={() => setConfirmando(null)}
                            />
                          </td>
                        </tr>
                      )}
                    </Fragment>
                  ))}
                </Tabela>
              )}
              <h3 className="t-label">Histórico</h3>
              {d.movimentos.length === 0 ? (
                <p className="muted vazio">Nenhuma movimentação ainda.</p>
              ) : (
                <Tabela
                  className="tabela-cartoes"
                  rotulo="Histórico do SKU"
                  colunas={['Quando', 'Movimento', 'Lote', { num: 'Qtd' }, 'Por']}
                >
                  {d.movimentos.map((m, i) => (
                    <tr key={`${m.tipo}-${m.codigoLote}-${m.quando}-${i}`} data-movimento={m.tipo}>
                      <td data-rotulo="Quando">
                        <time dateTime={m.quando}>{dataHora(m.quando)}</time>
                      </td>
                      <td data-rotulo="Movimento">
                        {ROTULO_MOVIMENTO[m.tipo]}
                        {m.motivo && ` · ${ROTULO_MOTIVO[m.motivo]}`}
                      </td>
                      <td className="mono" data-rotulo="Lote">
                        {m.codigoLote}
                      </td>
                      <td className="num mono" data-rotulo="Qtd">
                        {m.tipo === 'entrada' ? '+' : '−'}
                        {formatarNumero(m.qtd)}
                      </td>
                      <td data-rotulo="Por">{quem(m)}</td>
                    </tr>
                  ))}
                </Tabela>
              )}
            </>
          )}
        </Carregado>
      )}
    </section>
  );
}

/** Who made a movement: the operator named, a shipment the system's (the restock it answered). */
function quem(m: Movimento): string {
  return m.operador ?? (m.tipo === 'expedicao' ? 'Sistema (reposição)' : '—');
}

/** Why an expired lot's units go (vencido first), or a valid one's (vencido is not offered). */
function motivos(vencido: boolean): MotivoBaixa[] {
  return vencido ? ['vencido', 'avaria', 'furto', 'ajuste'] : ['avaria', 'furto', 'ajuste'];
}

/** The write-off of a lot: how many (all by default) and why, checked here before it is sent. */
function FormBaixa({
  lote,
  enviando,
  aoConfirmar,
  aoCancelar,
}: {
  lote: LoteInventario;
  enviando: boolean;
  aoConfirmar: (quantidade: number, motivo: MotivoBaixa) => void;
  aoCancelar: () => void;
}) {
  const max = lote.quantidadeDisponivel;
  const [texto, setTexto] = useState(String(max));
  const [motivo, setMotivo] = useState<MotivoBaixa>(motivos(lote.vencido)[0]);
  const [erro, setErro] = useState<string | null>(null);
  const qtd = quantidadeBaixa(texto, max);
  function enviar(e: FormEvent) {
    e.preventDefault();
    if (typeof qtd === 'string') setErro(qtd);
    else aoConfirmar(qtd, motivo);
  }
  return (
    <form
      className="form-baixa"
      aria-label={`Dar baixa no lote ${lote.codigoLote}`}
      noValidate
      onSubmit={enviar}
    >
      <div className="campo">
        <label htmlFor="baixa-quantidade">Quantidade (de {formatarNumero(max)})</label>
        <input
          id="baixa-quantidade"
          inputMode="numeric"
          autoComplete="off"
          value={texto}
          aria-invalid={erro !== null}
          aria-describedby={erro ? 'baixa-erro' : undefined}
          onChange={(e) => {
            setTexto(e.target.value);
            setErro(null);
          }}
        />
      </div>
      <div className="campo">
        <label htmlFor="baixa-motivo">Motivo</label>
        <select
          id="baixa-motivo"
          value={motivo}
          onChange={(e) => setMotivo(e.target.value as MotivoBaixa)}
        >
          {motivos(lote.vencido).map((m) => (
            <option key={m} value={m}>
              {ROTULO_MOTIVO[m]}
            </option>
          ))}
        </select>
      </div>
      <p className="t-small form-baixa-resumo">
        {typeof qtd === 'number'
          ? `Dar baixa em ${unidades(qtd)} do lote ${lote.codigoLote} (${ROTULO_MOTIVO[motivo].toLowerCase()})? Elas saem do estoque de vez.`
          : `O lote ${lote.codigoLote} tem ${unidades(max)}.`}
      </p>
      {erro && (
        <p id="baixa-erro" className="ajuda ajuda-erro" role="alert">
          {erro}
        </p>
      )}
      <div className="form-baixa-acoes">
        <button type="submit" className="btn btn-perigo" disabled={enviando}>
          {enviando ? 'Dando baixa…' : 'Confirmar baixa'}
        </button>
        <button type="button" className="btn btn-link" onClick={aoCancelar}>
          Cancelar
        </button>
      </div>
    </form>
  );
}
