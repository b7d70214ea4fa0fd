// Texts of the dashboard that depend on data (SPEC §8.2).
import { formatarNumero } from '../../shared/formato';
import type { Baixa, FiltroEstado, LoteRegistrado, MotivoBaixa, Movimento } from './api';

export function mensagemLoteRegistrado(
  codigoLote: string,
  r: LoteRegistrado,
  vencido = false,
): string {
  let m = `Lote ${codigoLote} registrado. Saldo do SKU: ${formatarNumero(r.saldoDisponivel)}.`;
  if (vencido) m += ' Lote vencido: não sai para o mercado; dê baixa nele no Estoque.';
  if (r.demandasAtendidas === 1) m += ' 1 demanda reprimida atendida.';
  else if (r.demandasAtendidas > 1)
    m += ` ${formatarNumero(r.demandasAtendidas)} demandas reprimidas atendidas.`;
  if (!r.classificado) m += ' Tags pendentes: o produto será reclassificado depois.';
  return m;
}

export function pedidosAguardando(n: number): string {
  return n === 1 ? '1 pedido aguardando lote' : `${formatarNumero(n)} pedidos aguardando lote`;
}

export const ERRO_LOTE = 'Não foi possível registrar o lote. Tente de novo.';
export const SKU_INVALIDO = 'EAN-8 ou GTIN de 12 a 14 dígitos.';
export const SKU_NOVO = 'SKU novo: informe descrição e NCM.';
/** The form's own checks, in pt-BR beside each field (the browser's bubbles are off, issue 39). */
export const SKU_VAZIO = 'Informe o SKU/EAN do produto.';
export const DESCRICAO_VAZIA = 'Informe a descrição do produto.';
export const NCM_INVALIDO = 'NCM tem 8 dígitos, como na nota fiscal (ex.: 1905.31.00).';
export const QUANTIDADE_INVALIDA = 'Informe a quantidade: um número inteiro a partir de 1.';
export const CODIGO_LOTE_VAZIO = 'Informe o código do lote, como na embalagem.';
export const SKU_ERRO = 'Não foi possível consultar o SKU.';
export const VALIDADE_PASSADA =
  'Esta validade já passou: o lote não atende demanda nenhuma. Confira a data na embalagem.';

/** The question asked before an expired lot is sent (estoque takes it in: SPEC §6.2.1, §8.2). */
export function perguntaLoteVencido(codigoLote: string, validade: string): string {
  return (
    `A validade ${formatarData(validade)} já passou. O lote ${codigoLote} vai entrar no estoque ` +
    'como vencido: não sai para o mercado, não atende demanda nenhuma e fica no Estoque para dar ' +
    'baixa. Registrar mesmo assim?'
  );
}

/** The inventory's words for a state or a filter (SPEC §6.2.1). */
export const ROTULO_ESTADO: Record<FiltroEstado, string> = {
  'com-saldo': 'Com saldo válido',
  'so-vencido': 'Só vencido',
  zerado: 'Zerado',
  'sem-saldo-valido': 'Sem saldo válido',
  vencendo: 'Vencendo em 30 dias',
  'com-demanda': 'Com demanda reprimida',
};

/** `2026-10-05` → `05/10/2026` (a civil date: no time zone to apply). */
export function formatarData(data: string): string {
  const [a, m, d] = data.split('-');
  return `${d}/${m}/${a}`;
}

export function unidades(n: number): string {
  return n === 1 ? '1 unidade' : `${formatarNumero(n)} unidades`;
}

/** The reasons of a write-off as the operator reads them (issue 39). */
export const ROTULO_MOTIVO: Record<MotivoBaixa, string> = {
  vencido: 'Vencido',
  avaria: 'Avaria',
  furto: 'Furto',
  ajuste: 'Ajuste de inventário',
};

/** What the write-off did, as the API answered it: how many, why, and what the lot still holds. */
export function mensagemBaixa(b: Baixa): string {
  const resto =
    b.restante === 0 ? 'O lote ficou sem unidades.' : `Restam ${unidades(b.restante)} no lote.`;
  return `Baixa registrada: ${unidades(b.qtd)} do lote ${b.codigoLote} saíram do estoque (${ROTULO_MOTIVO[b.motivo].toLowerCase()}). ${resto}`;
}

/** The quantity typed in the write-off form: an integer from 1 to `max`, or what to fix. */
export function quantidadeBaixa(texto: string, max: number): number | string {
  const n = Number(texto.trim());
  return /^\d+$/.test(texto.trim()) && n >= 1 && n <= max
    ? n
    : `Informe um número inteiro de 1 a ${formatarNumero(max)}.`;
}

export function vazioEstoque(busca: string | undefined, estado: FiltroEstado | undefined): string {
  if (busca) return `Nenhum SKU encontrado para “${busca}”.`;
  if (estado) return `Nenhum SKU na situação “${ROTULO_ESTADO[estado]}”.`;
  return 'Nenhum SKU cadastrado no estoque ainda.';
}

export const ROTULO_MOVIMENTO: Record<Movimento['tipo'], string> = {
  entrada: 'Entrada',
  expedicao: 'Expedição',
  baixa: 'Baixa',
};
