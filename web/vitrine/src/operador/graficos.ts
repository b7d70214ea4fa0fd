// The operator home's charts' API (issue 26): each route one aggregated series.
import { pedir } from './api';

export interface HoraVendas {
  hora: string;
  pedidos: number;
  pagos: number;
  /** The paid orders' totals, in reais. */
  receita: number;
}

export interface Vendas {
  horas: number;
  pontos: HoraVendas[];
}

export interface Esgotado {
  sku: string;
  nome: string;
  status: 'DISPONIVEL' | 'ESGOTADO';
  reposicoes: number;
}

export interface Esgotados {
  horas: number;
  produtos: Esgotado[];
}

export interface Prateleira {
  sku: string;
  nome: string;
  prateleira: number;
  estoqueMinimo: number;
  estoqueIdeal: number;
}

export const vendas = (horas: number) =>
  pedir<Vendas>(`/operacao/graficos/vendas?horas=${encodeURIComponent(String(horas))}`);

export const esgotados = (horas: number) =>
  pedir<Esgotados>(`/operacao/graficos/esgotados?horas=${encodeURIComponent(String(horas))}`);

export const prateleira = () => pedir<Prateleira[]>('/operacao/graficos/prateleira');
