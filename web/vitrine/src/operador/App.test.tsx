import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fetchFalso, renderizar } from '../teste-util';
import { App } from './App';

// The operator pages use the dashboard's login and shell (shared/Operador.tsx), with mercado's
// names, session calls and cookie.
describe('operator pages: login and shell', () => {
  it('without a session: mercado\'s login, and "no answer" names the mercado-service', async () => {
    document.cookie = 'XSRF-MERCADO=t; path=/';
    fetchFalso({
      'GET /api/sessao?opcional=true': { status: 401, corpo: { detail: 'nenhum operador logado' } },
    });
    renderizar(<App />);
    expect(
      await screen.findByRole('heading', { name: 'Entrar na operação do mercado' }),
    ).toBeTruthy();
    expect(screen.getByText('Girô · Mercado')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Usuário'), { target: { value: 'operador' } });
    fireEvent.change(screen.getByLabelText('Senha'), { target: { value: 'segredo-123' } });
    fireEvent.click(screen.getByRole('button', { name: 'Entrar' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Não foi possível entrar. Verifique a conexão com o mercado-service.',
    );
  });

  it('with a session: the shell with the operator, the navigation and "Sair"', async () => {
    fetchFalso({
      'GET /api/sessao?opcional=true': { status: 200, corpo: { usuario: 'operador' } },
      'GET /api/operacao/produtos': { status: 200, corpo: [] },
    });
    renderizar(<App />);
    expect(await screen.findByRole('heading', { name: 'Operação do mercado' })).toBeTruthy();
    expect(screen.getByTestId('operador').textContent).toBe('operador');
    const lateral = screen.getByRole('complementary', { name: 'Navegação da operação' });
    expect(
      within(lateral)
        .getAllByRole('link')
        .map((l) => l.textContent),
    ).toEqual(['Produtos', 'Pedidos', 'Eventos', 'Ver a vitrine']);
    expect(screen.getByRole('button', { name: 'Sair' })).toBeTruthy();
  });
});
