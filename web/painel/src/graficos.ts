// The dashboard's charts' API (issue 26): each route one aggregated series.
import { pedir } from './api';

export interface Percentis {
  p50: number | null;
  p99: number | null;
}

export interface PontoLatencia {
  inicio: string;
  reposicoes: number;
  /** Request → shipment, seconds. */
  expedicao: Percentis;
  /** Request → shelf credit, seconds. */
  credito: Percentis;
}

export interface Latencia {
  horas: number;
  intervaloSegundos: number;
  pontos: PontoLatencia[];
}

export interface FaixaDemanda {
  faixa: string;
  desdeSegundos: number;
  demandas: number;
  unidades: number;
}

export const latenciaReposicao = (horas: number) =>
  pedir<Latencia>(`/painel/graficos/latencia-reposicao?horas=${encodeURIComponent(String(horas))}`);

export const demandaPorIdade = () => pedir<FaixaDemanda[]>('/painel/graficos/demanda-por-idade');

/** The windows the latency chart offers (the route takes 1–48). */
export const JANELAS_HORAS = [1, 6, 24, 48] as const;
