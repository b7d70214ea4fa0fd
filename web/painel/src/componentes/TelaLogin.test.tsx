import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { TelaLogin as TelaLoginOperador } from '../../../shared/Operador';
import { servico } from '../api';
import { fetchFalso, renderizar } from '../teste-util';

// The dashboard's login: the shared one with estoque's service and title.
const TelaLogin = () => <TelaLoginOperador servico={servico} titulo="Entrar no painel" />;

function entrar() {
  fireEvent.change(screen.getByLabelText('Usuário'), { target: { value: 'operador' } });
  fireEvent.change(screen.getByLabelText('Senha'), { target: { value: 'segredo-123' } });
  fireEvent.click(screen.getByRole('button', { name: 'Entrar' }));
}

describe('TelaLogin', () => {
  it('posts the form with the CSRF cookie echoed in X-XSRF-TOKEN, then asks the session again', async () => {
    document.cookie = 'XSRF-ESTOQUE=tok-123; path=/';
    const f = fetchFalso({ 'POST /api/sessao': { status: 204 } });
    const { cliente } = renderizar(<TelaLogin />);
    expect(screen.getByRole('heading', { name: 'Entrar no painel' })).toBeTruthy();
    cliente.setQueryData(['sessao'], null);
    entrar();
    await waitFor(() => expect(cliente.getQueryState(['sessao'])?.isInvalidated).toBe(true));
    const [url, init] = f.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/sessao');
    expect(init.body).toBe('usuario=operador&senha=segredo-123');
    const h = new Headers(init.headers);
    expect(h.get('Content-Type')).toBe('application/x-www-form-urlencoded');
    expect(h.get('X-XSRF-TOKEN')).toBe('tok-123');
    expect(cliente.getQueryState(['sessao'])?.isInvalidated).toBe(true);
  });

  it('fetches the CSRF cookie first when it is missing', async () => {
    const f = fetchFalso({
      'GET /api/sessao?opcional=true': () => {
        document.cookie = 'XSRF-ESTOQUE=novo; path=/';
        return { status: 401, corpo: { detail: 'nenhum operador logado' } };
      },
      'POST /api/sessao': { status: 204 },
    });
    renderizar(<TelaLogin />);
    entrar();
    await waitFor(() =>
      expect(
        f.mock.calls.map((c) => (c as unknown as [string, RequestInit?])[1]?.method ?? 'GET'),
      ).toEqual(['GET', 'POST']),
    );
    expect(
      new Headers((f.mock.calls[1] as unknown as [string, RequestInit])[1].headers).get(
        'X-XSRF-TOKEN',
      ),
    ).toBe('novo');
  });

  it('401: "Usuário ou senha inválidos."', async () => {
    document.cookie = 'XSRF-ESTOQUE=t; path=/';
    fetchFalso({
      'POST /api/sessao': { status: 401, corpo: { detail: 'usuário ou senha inválidos' } },
    });
    renderizar(<TelaLogin />);
    entrar();
    expect((await screen.findByRole('alert')).textContent).toBe('Usuário ou senha inválidos.');
  });

  it('no answer or another error: check the connection', async () => {
    document.cookie = 'XSRF-ESTOQUE=t; path=/';
    fetchFalso({ 'POST /api/sessao': 'falha' });
    renderizar(<TelaLogin />);
    entrar();
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Não foi possível entrar. Verifique a conexão com o estoque-service.',
    );
  });
});
