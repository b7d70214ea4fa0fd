// Test helpers: the app's providers around a page, and a fetch that answers from a table.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { vi } from 'vitest';
import { CarrinhoProvider } from './CarrinhoContext';

export function renderizar(
  elemento: ReactNode,
  { rota = '/', caminho = '*' }: { rota?: string; caminho?: string } = {},
) {
  const cliente = new QueryClient({
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
  return render(
    <QueryClientProvider client={cliente}>
      <CarrinhoProvider>
        <MemoryRouter initialEntries={[rota]}>
          <Routes>
            <Route path={caminho} element={elemento} />
            <Route path="/pedidos/:id" element={<p>página do pedido</p>} />
          </Routes>
        </MemoryRouter>
      </CarrinhoProvider>
    </QueryClientProvider>,
  );
}

export type Resposta =
  { status: number; corpo?: unknown } | (() => { status: number; corpo?: unknown });

/** Stubs fetch: `METHOD /path` → answer (a function is called on every request). */
export function fetchFalso(rotas: Record<string, Resposta>) {
  const f = vi.fn(async (url: string, init?: RequestInit) => {
    const chave = `${(init?.method ?? 'GET').toUpperCase()} ${url}`;
    const r = rotas[chave];
    if (!r) throw new TypeError(`sem rota falsa para ${chave}`);
    const { status, corpo } = typeof r === 'function' ? r() : r;
    return new Response(corpo === undefined ? null : JSON.stringify(corpo), {
      status,
      headers: { 'Content-Type': 'application/json' },
    });
  });
  vi.stubGlobal('fetch', f);
  return f;
}
