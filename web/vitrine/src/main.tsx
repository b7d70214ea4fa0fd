import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import './styles/tokens.css';
import '../../shared/fontes.css';
import '../../shared/base.css';
import './styles/app.css';
import { LimiteErro } from '../../shared/LimiteErro';
import { App } from './App';
import { CarrinhoProvider } from './CarrinhoContext';

const cliente = new QueryClient({
  defaultOptions: { queries: { staleTime: 10_000, retry: 1, refetchOnWindowFocus: true } },
});

const raiz = document.getElementById('root');
if (raiz) {
  createRoot(raiz).render(
    <StrictMode>
      <LimiteErro>
        <QueryClientProvider client={cliente}>
          <CarrinhoProvider>
            <BrowserRouter>
              <App />
            </BrowserRouter>
          </CarrinhoProvider>
        </QueryClientProvider>
      </LimiteErro>
    </StrictMode>,
  );
}
