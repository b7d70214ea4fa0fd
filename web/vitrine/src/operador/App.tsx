import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { NavLink, Route, Routes } from 'react-router';
import { ConsoleEventos } from '../../../shared/ConsoleEventos';
import { apiEventos } from '../../../shared/eventos';
import { GiroMark } from '../../../shared/GiroMark';
import { entrar, ErroApi, pedir, sair, sessaoAtual, type Sessao } from './api';
import { PaginaProdutos } from './PaginaProdutos';

const EVENTOS = apiEventos(pedir);

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
        <div className="aviso aviso-erro" role="alert">
          <p>Não foi possível carregar. Verifique a conexão com o mercado-service.</p>
          <button type="button" className="btn btn-contorno" onClick={() => sessao.refetch()}>
            Tentar de novo
          </button>
        </div>
      </main>
    );
  }
  return sessao.data ? <Operacao sessao={sessao.data} /> : <TelaLogin />;
}

function TelaLogin() {
  const cliente = useQueryClient();
  const [usuario, setUsuario] = useState('');
  const [senha, setSenha] = useState('');
  const login = useMutation({
    mutationFn: () => entrar(usuario, senha),
    onSuccess: () => cliente.invalidateQueries({ queryKey: ['sessao'] }),
  });
  const erro = login.error
    ? login.error instanceof ErroApi && login.error.status === 401
      ? 'Usuário ou senha inválidos.'
      : 'Não foi possível entrar. Verifique a conexão com o mercado-service.'
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
          <span className="t-label">Girô · Mercado</span>
        </div>
        <h1 id="titulo-login" className="t-title">
          Entrar na operação do mercado
        </h1>
        <div className="campo">
          <label htmlFor="usuario">Usuário</label>
          <input
            id="usuario"
            name="usuario"
            autoComplete="username"
            required
            value={usuario}
            onChange={(e) => setUsuario(e.target.value)}
          />
        </div>
        <div className="campo">
          <label htmlFor="senha">Senha</label>
          <input
            id="senha"
            name="senha"
            type="password"
            autoComplete="current-password"
            required
            value={senha}
            onChange={(e) => setSenha(e.target.value)}
          />
        </div>
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

function Operacao({ sessao }: { sessao: Sessao }) {
  const cliente = useQueryClient();
  const saida = useMutation({
    mutationFn: sair,
    onSettled: () => {
      cliente.removeQueries({ predicate: (q) => q.queryKey[0] !== 'sessao' });
      cliente.setQueryData(['sessao'], null);
    },
  });
  return (
    <div className="painel">
      <aside className="lateral" aria-label="Navegação da operação">
        <div className="lateral-marca">
          <GiroMark size={32} />
          <span className="lateral-nome">Girô · Mercado</span>
        </div>
        <nav className="lateral-nav">
          <NavLink to="/" end>
            Produtos
          </NavLink>
          <NavLink to="/eventos">Eventos</NavLink>
        </nav>
        <a className="lateral-vitrine" href="/">
          Ver a vitrine
        </a>
      </aside>
      <div className="principal">
        <header className="topo">
          <h1 className="t-title">Operação do mercado</h1>
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
        <main className="conteudo-painel">
          <Routes>
            <Route path="/" element={<PaginaProdutos />} />
            <Route
              path="/eventos"
              element={<ConsoleEventos api={EVENTOS} chave="operador" servico="mercado" />}
            />
            <Route path="*" element={<p className="muted">Página não encontrada.</p>} />
          </Routes>
        </main>
      </div>
    </div>
  );
}
