import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './styles/tokens.css';
import '../../shared/fontes.css';
import '../../shared/base.css';
import '../../shared/console.css';
import './styles/app.css';
import { LimiteErro } from '../../shared/LimiteErro';
import { novoClienteConsultas } from '../../shared/consultas';
import { App } from './App';

const cliente = novoClienteConsultas({
  chavesDaSessao: [['painel']],
  defaultOptions: { queries: { staleTime: 2_000, retry: 1 }, mutations: { retry: false } },
});

const raiz = document.getElementById('root');
if (raiz) {
  createRoot(raiz).render(
    <StrictMode>
      <LimiteErro>
        <QueryClientProvider client={cliente}>
          <App />
        </QueryClientProvider>
      </LimiteErro>
    </StrictMode>,
  );
}
