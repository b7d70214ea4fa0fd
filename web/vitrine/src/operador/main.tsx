// mercado's operator pages (issue 18), a second app of the storefront's build served under
// /operador/ on mercado's web listener: login, products, registration, the event console.
import { BrowserRouter } from 'react-router';
import '../styles/tokens.css';
import '../../../shared/fontes.css';
import '../../../shared/base.css';
import '../../../painel/src/styles/app.css';
import '../../../shared/console.css';
import './operador.css';
import { novoClienteConsultas } from '../../../shared/consultas';
import { montar } from '../../../shared/montar';
import { App } from './App';

montar(
  novoClienteConsultas({
    chavesDaSessao: [['operador']],
    defaultOptions: { queries: { staleTime: 1_000, retry: 1 }, mutations: { retry: false } },
  }),
  <BrowserRouter basename="/operador">
    <App />
  </BrowserRouter>,
);
