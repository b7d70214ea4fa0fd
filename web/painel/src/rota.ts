// The dashboard's views, in the URL's hash so the services' static serving needs no route of its
// own and a filtered link (a KPI's) can be shared: `#/estoque?estado=…&busca=…&pagina=…` is the
// inventory, `#/estoque/<sku>` one SKU, anything else the dashboard (its anchors included).

import { useEffect, useState } from 'react';
import type { FiltroEstado, FiltroInventario } from './api';

export type Rota =
  | { pagina: 'painel' }
  | { pagina: 'estoque'; filtro: FiltroInventario }
  | { pagina: 'sku'; sku: string };

export const ESTADOS: readonly FiltroEstado[] = [
  'com-saldo',
  'so-vencido',
  'zerado',
  'sem-saldo-valido',
  'vencendo',
  'com-demanda',
];

export function lerRota(hash: string): Rota {
  const h = hash.replace(/^#/, '');
  if (!h.startsWith('/estoque')) return { pagina: 'painel' };
  const [caminho = '', consulta = ''] = h.split('?', 2);
  const resto = caminho.slice('/estoque'.length).replace(/^\//, '');
  if (resto) return { pagina: 'sku', sku: decodeURIComponent(resto) };
  const q = new URLSearchParams(consulta);
  const filtro: FiltroInventario = {};
  const busca = q.get('busca')?.trim();
  if (busca) filtro.busca = busca;
  const estado = q.get('estado');
  if (estado && (ESTADOS as string[]).includes(estado)) filtro.estado = estado as FiltroEstado;
  const pagina = Number(q.get('pagina'));
  if (Number.isInteger(pagina) && pagina > 1) filtro.pagina = pagina;
  return { pagina: 'estoque', filtro };
}

/** The hash of the inventory with `filtro` (page 1 left out). */
export function hrefEstoque(filtro: FiltroInventario = {}): string {
  const q = new URLSearchParams();
  if (filtro.busca?.trim()) q.set('busca', filtro.busca.trim());
  if (filtro.estado) q.set('estado', filtro.estado);
  if (filtro.pagina && filtro.pagina > 1) q.set('pagina', String(filtro.pagina));
  const s = q.toString();
  return `#/estoque${s ? `?${s}` : ''}`;
}

export function hrefSku(sku: string): string {
  return `#/estoque/${encodeURIComponent(sku)}`;
}

/** The current view, following the hash. */
export function useRota(): Rota {
  const [hash, setHash] = useState(() => window.location.hash);
  useEffect(() => {
    const mudou = () => setHash(window.location.hash);
    window.addEventListener('hashchange', mudou);
    return () => window.removeEventListener('hashchange', mudou);
  }, []);
  return lerRota(hash);
}
