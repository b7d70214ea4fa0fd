import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { quandoPerderSessao, sessaoAtual } from './api';
import { ErroCarregamento } from './componentes/ErroCarregamento';
import { Painel } from './componentes/Painel';
import { TelaLogin } from './componentes/TelaLogin';

export function App() {
  const cliente = useQueryClient();
  const sessao = useQuery({
    queryKey: ['sessao'],
    queryFn: sessaoAtual,
    staleTime: Infinity,
    retry: false,
  });
  useEffect(() => {
    // Any 401 from a query or a write: the session is gone, back to the login.
    quandoPerderSessao(() => {
      cliente.removeQueries({ queryKey: ['painel'] });
      cliente.setQueryData(['sessao'], null);
    });
  }, [cliente]);

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
