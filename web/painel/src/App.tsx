import { AppOperador } from '../../shared/Operador';
import { servico } from './api';
import { Painel } from './componentes/Painel';

export function App() {
  return (
    <AppOperador servico={servico} tituloLogin="Entrar no painel">
      {(sessao) => <Painel sessao={sessao} />}
    </AppOperador>
  );
}
