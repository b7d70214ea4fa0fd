// The operator's side of both services — estoque's dashboard (painel) and mercado's operator pages
// (vitrine/operador): the session gate, the login form and the shell (sidebar, header with the
// operator and "Sair"), written once. Each app brings its service (name and session calls of the
// shared API client), its titles, its navigation and its pages.
import { useMutation, useQuery, useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import { useState, type FormEvent, type InputHTMLAttributes, type ReactNode } from 'react';
import { ErroApi, type Sessao } from './api';
import { GiroMark } from './GiroMark';

/** The service an operator app works on and its session calls. */
export interface ServicoOperador {
  /** As the brand shows it: `Estoque` → "Girô · Estoque", "estoque-service" in messages. */
  nome: string;
  sessaoAtual: () => Promise<Sessao | null>;
  entrar: (usuario: string, senha: string) => Promise<void>;
  sair: () => Promise<void>;
}

const minusculo = (s: ServicoOperador) => s.nome.toLowerCase();

/** A query that failed: the service answered 5xx, or did not answer at all. */
export function ErroCarregamento({
  servico,
  erro,
  aoTentar,
}: {
  servico: ServicoOperador;
  erro: unknown;
  aoTentar: () => void;
}) {
  const semResposta = erro instanceof ErroApi && erro.status >= 500;
  return (
    <div className="aviso aviso-erro erro-carregamento" role="alert">
      <p>
        {semResposta
          ? `Não foi possível carregar. O ${minusculo(servico)} não respondeu.`
          : `Não foi possível carregar. Verifique a conexão com o ${minusculo(servico)}-service.`}
      </p>
      <button type="button" className="btn btn-contorno" onClick={aoTentar}>
        Tentar de novo
      </button>
    </div>
  );
}

/**
 * An operator page's query on screen: the load error to retry while nothing was ever read (a
 * failed refetch keeps the last answer on screen), "Carregando…" until the first answer, `vazio`
 * when the answer is an empty list, then `children` with the data.
 */
export function Carregado<T>({
  q,
  servico,
  vazio,
  children,
}: {
  q: UseQueryResult<T>;
  servico: ServicoOperador;
  /** What an empty list says (a page whose data is not a list tells its own emptiness). */
  vazio?: string;
  children: (dados: T) => ReactNode;
}) {
  if (q.isError && !q.data)
    return <ErroCarregamento servico={servico} erro={q.error} aoTentar={() => q.refetch()} />;
  if (!q.data) return <p className="muted">Carregando…</p>;
  if (vazio !== undefined && Array.isArray(q.data) && q.data.length === 0)
    return <p className="muted vazio">{vazio}</p>;
  return children(q.data);
}

/** The session gate: loading, a load error to retry, the login, or the app for the operator. */
export function AppOperador({
  servico,
  tituloLogin,
  children,
}: {
  servico: ServicoOperador;
  tituloLogin: string;
  children: (sessao: Sessao) => ReactNode;
}) {
  // A 401 anywhere sets ['sessao'] to null: the query client's onError (consultas.ts).
  const sessao = useQuery({
    queryKey: ['sessao'],
    queryFn: servico.sessaoAtual,
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
        <ErroCarregamento servico={servico} erro={sessao.error} aoTentar={() => sessao.refetch()} />
      </main>
    );
  }
  return sessao.data ? children(sessao.data) : <TelaLogin servico={servico} titulo={tituloLogin} />;
}

export function TelaLogin({ servico, titulo }: { servico: ServicoOperador; titulo: string }) {
  const cliente = useQueryClient();
  const [usuario, setUsuario] = useState('');
  const [senha, setSenha] = useState('');
  const login = useMutation({
    mutationFn: () => servico.entrar(usuario, senha),
    // The session query again: the operator, and the CSRF token rotated at login.
    onSuccess: () => cliente.invalidateQueries({ queryKey: ['sessao'] }),
  });
  const erro = login.error
    ? login.error instanceof ErroApi && login.error.status === 401
      ? 'Usuário ou senha inválidos.'
      : `Não foi possível entrar. Verifique a conexão com o ${minusculo(servico)}-service.`
    : null;

  function enviar(e: FormEvent) {
    e.preventDefault();
    login.mutate();
  }

  return (
    <main className="login">
      <form className="cartao login-cartao" onSubmit={enviar} aria-labelledby="titulo-login">
        <div className="login-marca">
          <GiroMark size={40} />
          <span className="t-label">Girô · {servico.nome}</span>
        </div>
        <h1 id="titulo-login" className="t-title">
          {titulo}
        </h1>
        <Campo
          id="usuario"
          rotulo="Usuário"
          autoComplete="username"
          value={usuario}
          onChange={(e) => setUsuario(e.target.value)}
        />
        <Campo
          id="senha"
          rotulo="Senha"
          type="password"
          autoComplete="current-password"
          value={senha}
          onChange={(e) => setSenha(e.target.value)}
        />
        {erro && (
          <p className="aviso aviso-erro" role="alert">
            {erro}
          </p>
        )}
        <button type="submit" className="btn btn-secundario" disabled={login.isPending}>
          {login.isPending ? 'Entrando…' : 'Entrar'}
        </button>
      </form>
    </main>
  );
}

/** A required field of the login form: its label and its input, named `id`. */
function Campo({
  id,
  rotulo,
  ...input
}: { id: string; rotulo: string } & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <div className="campo">
      <label htmlFor={id}>{rotulo}</label>
      <input id={id} name={id} required {...input} />
    </div>
  );
}

/** The operator's shell: sidebar (brand, `navegacao`, a link to the storefront), header (title,
 * the operator, "Sair") and the page. */
export function CascaOperador({
  servico,
  sessao,
  titulo,
  rotuloNavegacao,
  navegacao,
  urlVitrine,
  children,
}: {
  servico: ServicoOperador;
  sessao: Sessao;
  titulo: string;
  rotuloNavegacao: string;
  navegacao: ReactNode;
  urlVitrine: string;
  children: ReactNode;
}) {
  const cliente = useQueryClient();
  const saida = useMutation({
    mutationFn: servico.sair,
    onSettled: () => {
      // Every cached query goes; the session one stays observed, now empty (→ login).
      cliente.removeQueries({ predicate: (q) => q.queryKey[0] !== 'sessao' });
      cliente.setQueryData(['sessao'], null);
    },
  });

  return (
    <div className="painel">
      <aside className="lateral" aria-label={rotuloNavegacao}>
        <div className="lateral-marca">
          <GiroMark size={32} />
          <span className="lateral-nome">Girô · {servico.nome}</span>
        </div>
        <nav className="lateral-nav">{navegacao}</nav>
        <a className="lateral-vitrine" href={urlVitrine}>
          Ver a vitrine
        </a>
      </aside>
      <div className="principal">
        <header className="topo">
          <h1 className="t-title">{titulo}</h1>
          <div className="topo-operador">
            <span className="t-small muted" data-testid="operador">
              {sessao.usuario}
            </span>
            <button
              type="button"
              className="btn btn-contorno"
              disabled={saida.isPending}
              onClick={() => saida.mutate()}
            >
              Sair
            </button>
          </div>
        </header>
        <main className="conteudo-painel">{children}</main>
      </div>
    </div>
  );
}
