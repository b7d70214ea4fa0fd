// How every app of both fronts starts, written once: on the page's #root, in strict mode, inside
// the error boundary (LimiteErro) and the app's query client. Each main.tsx imports its styles
// first (their order is the cascade's), builds its client and passes its tree.
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { StrictMode, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { LimiteErro } from './LimiteErro';

export function montar(cliente: QueryClient, app: ReactNode): void {
  const raiz = document.getElementById('root');
  if (!raiz) return;
  createRoot(raiz).render(
    <StrictMode>
      <LimiteErro>
        <QueryClientProvider client={cliente}>{app}</QueryClientProvider>
      </LimiteErro>
    </StrictMode>,
  );
}
