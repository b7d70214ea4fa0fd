import { QueryClient } from '@tanstack/react-query';
import { BrowserRouter } from 'react-router';
import './styles/tokens.css';
import '../../shared/fontes.css';
import '../../shared/base.css';
import './styles/app.css';
import { montar } from '../../shared/montar';
import { App } from './App';
import { CarrinhoProvider } from './CarrinhoContext';

montar(
  new QueryClient({
    defaultOptions: { queries: { staleTime: 10_000, retry: 1, refetchOnWindowFocus: true } },
  }),
  <CarrinhoProvider>
    <BrowserRouter>
      <App />
    </BrowserRouter>
  </CarrinhoProvider>,
);
