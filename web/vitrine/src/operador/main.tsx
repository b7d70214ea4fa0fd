// mercado's operator pages (issue 18), a second app of the storefront's build served under
// /operador/ on mercado's web listener: login, products, registration, the event console.
import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import '../styles/tokens.css';
import '../../../shared/fontes.css';
import '../../../shared/base.css';
import '../../../painel/src/styles/app.css';
import '../../../shared/console.css';
import './operador.css';
import { LimiteErro } from '../../../shared/LimiteErro';
import { novoClienteConsultas } from '../../../shared/consultas';
import { App } from './App';

const cliente = novoClienteConsultas({
  chavesDaSessao: [['operador']],
  defaultOptions: { queries: { staleTime: 1_000, retry: 1 }, mutations: { retry: false } },
});

const raiz = document.getElementById('root');
if (raiz) {
  createRoot(raiz).render(
    <StrictMode>
      <LimiteErro>
        <QueryClientProvider client={cliente}>
          <BrowserRouter basename="/operador">
            <App />
          </BrowserRouter>
        </QueryClientProvider>
      </LimiteErro>
    </StrictMode>,
  );
}
