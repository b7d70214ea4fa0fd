import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './styles/tokens.css';
import '../../shared/fontes.css';
import '../../shared/base.css';
import '../../shared/console.css';
import './styles/app.css';
import { App } from './App';

const cliente = new QueryClient({
  defaultOptions: { queries: { staleTime: 2_000, retry: 1 }, mutations: { retry: false } },
});

const raiz = document.getElementById('root');
if (raiz) {
  createRoot(raiz).render(
    <StrictMode>
      <QueryClientProvider client={cliente}>
        <App />
      </QueryClientProvider>
    </StrictMode>,
  );
}
