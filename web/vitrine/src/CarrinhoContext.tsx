import {
  createContext,
  useContext,
  useEffect,
  useReducer,
  type Dispatch,
  type ReactNode,
} from 'react';
import {
  CHAVE,
  carregar,
  carrinhoReducer,
  lerCarrinho,
  salvar,
  type Acao,
  type ItemCarrinho,
} from './carrinho';

interface Valor {
  itens: ItemCarrinho[];
  despachar: Dispatch<Acao>;
}

const Contexto = createContext<Valor | null>(null);

/** The cart, saved on every change and kept in step with other tabs. */
export function CarrinhoProvider({ children }: { children: ReactNode }) {
  const [itens, despachar] = useReducer(carrinhoReducer, undefined, () => carregar());
  useEffect(() => salvar(itens), [itens]);
  useEffect(() => {
    const aoMudar = (e: StorageEvent) => {
      if (e.key === CHAVE) despachar({ tipo: 'substituir', itens: lerCarrinho(e.newValue) });
    };
    window.addEventListener('storage', aoMudar);
    return () => window.removeEventListener('storage', aoMudar);
  }, []);
  return <Contexto.Provider value={{ itens, despachar }}>{children}</Contexto.Provider>;
}

export function useCarrinho(): Valor {
  const v = useContext(Contexto);
  if (!v) throw new Error('useCarrinho fora de CarrinhoProvider');
  return v;
}
