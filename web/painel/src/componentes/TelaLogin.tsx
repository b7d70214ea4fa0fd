import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { GiroMark } from '../../../shared/GiroMark';
import { entrar, ErroApi } from '../api';
import { LOGIN_INVALIDO, LOGIN_SEM_CONEXAO } from '../mensagens';

export function TelaLogin() {
  const cliente = useQueryClient();
  const [usuario, setUsuario] = useState('');
  const [senha, setSenha] = useState('');
  const login = useMutation({
    mutationFn: () => entrar(usuario, senha),
    // The session query again: the operator, and the CSRF token rotated at login.
    onSuccess: () => cliente.invalidateQueries({ queryKey: ['sessao'] }),
  });
  const erro = login.error
    ? login.error instanceof ErroApi && login.error.status === 401
      ? LOGIN_INVALIDO
      : LOGIN_SEM_CONEXAO
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
          <span className="t-label">Girô · Estoque</span>
        </div>
        <h1 id="titulo-login" className="t-title">
          Entrar no painel
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
