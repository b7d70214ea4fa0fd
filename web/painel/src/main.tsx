import './styles/tokens.css';
import '../../shared/fontes.css';
import '../../shared/base.css';
import '../../shared/console.css';
import './styles/app.css';
import { novoClienteConsultas } from '../../shared/consultas';
import { montar } from '../../shared/montar';
import { App } from './App';

montar(
  novoClienteConsultas({
    chavesDaSessao: [['painel']],
    defaultOptions: { queries: { staleTime: 2_000, retry: 1 }, mutations: { retry: false } },
  }),
  <App />,
);
