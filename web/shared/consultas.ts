// The query client of each app. For the operator's apps, a 401 from any query or write means
// the session is gone: the session query becomes null (the app shows its login) and the
// queries under `chavesDaSessao` are dropped — in the query client's onError, not in the API
// client, so the rule lives in one place and tests get it by using the same factory.
import {
  MutationCache,
  QueryCache,
  QueryClient,
  type DefaultOptions,
  type QueryKey,
} from '@tanstack/react-query';
import { ErroApi } from './api';

export function novoClienteConsultas({
  chavesDaSessao,
  defaultOptions,
}: { chavesDaSessao?: QueryKey[]; defaultOptions?: DefaultOptions } = {}): QueryClient {
  const aoErrar = (erro: unknown) => {
    if (!chavesDaSessao || !(erro instanceof ErroApi) || erro.status !== 401) return;
    for (const queryKey of chavesDaSessao) cliente.removeQueries({ queryKey });
    cliente.setQueryData(['sessao'], null);
  };
  const cliente: QueryClient = new QueryClient({
    queryCache: new QueryCache({ onError: aoErrar }),
    mutationCache: new MutationCache({ onError: aoErrar }),
    defaultOptions,
  });
  return cliente;
}
