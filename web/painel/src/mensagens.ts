// Texts of the dashboard that depend on data (SPEC §8.2).
import { formatarNumero } from '../../shared/formato';
import type { LoteRegistrado } from './api';

export function mensagemLoteRegistrado(codigoLote: string, r: LoteRegistrado): string {
  let m = `Lote ${codigoLote} registrado. Saldo do SKU: ${formatarNumero(r.saldoDisponivel)}.`;
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
export const SKU_ERRO = 'Não foi possível consultar o SKU.';
