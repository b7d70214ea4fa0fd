import { QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { vi } from 'vitest';
import { novoClienteConsultas } from '../../shared/consultas';

export function renderizar(elemento: ReactNode) {
  // The app's own factory, so a 401 loses the session as in the app.
  const cliente = novoClienteConsultas({
    chavesDaSessao: [['painel']],
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
  return {
    cliente,
    ...render(<QueryClientProvider client={cliente}>{elemento}</QueryClientProvider>),
  };
}

export type Resposta =
  | { status: number; corpo?: unknown }
  | ((init?: RequestInit) => { status: number; corpo?: unknown })
  | 'falha';

/** Stubs fetch: `METHOD /path` → answer; 'falha' = no answer (network error). */
export function fetchFalso(rotas: Record<string, Resposta>) {
  const f = vi.fn(async (url: string, init?: RequestInit) => {
    const chave = `${(init?.method ?? 'GET').toUpperCase()} ${url}`;
    const r = rotas[chave];
    if (!r || r === 'falha') throw new TypeError(`Failed to fetch ${chave}`);
    const { status, corpo } = typeof r === 'function' ? r(init) : r;
    return new Response(corpo === undefined || status === 204 ? null : JSON.stringify(corpo), {
      status,
      headers: { 'Content-Type': 'application/json' },
    });
  });
  vi.stubGlobal('fetch', f);
  return f;
}
