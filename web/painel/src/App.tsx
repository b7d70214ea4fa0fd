import { useQuery } from '@tanstack/react-query';
import { sessaoAtual } from './api';
import { ErroCarregamento } from './componentes/ErroCarregamento';
import { Painel } from './componentes/Painel';
import { TelaLogin } from './componentes/TelaLogin';

export function App() {
  // A 401 anywhere sets ['sessao'] to null: the query client's onError (main.tsx).
  const sessao = useQuery({
    queryKey: ['sessao'],
    queryFn: sessaoAtual,
    staleTime: Infinity,
    retry: false,
  });

  if (sessao.isPending) {
    return (
      <p className="carregando muted" role="status">
        Carregando…
      </p>
    );
  }
  if (sessao.isError) {
    return (
      <main className="login">
        <ErroCarregamento erro={sessao.error} aoTentar={() => sessao.refetch()} />
      </main>
    );
  }
  return sessao.data ? <Painel sessao={sessao.data} /> : <TelaLogin />;
}
