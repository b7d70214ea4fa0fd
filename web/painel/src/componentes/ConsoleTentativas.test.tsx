// The event console's attempt history (issue 26): each delivery attempt of an event — number,
// how long ago, outcome, the peer's HTTP status, the error — opened under the event, newest first.
import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConsoleEventos } from '../../../shared/ConsoleEventos';
import { apiEventos } from '../../../shared/eventos';
import { pedir } from '../api';
import { fetchFalso, renderizar } from '../teste-util';

const ID = '0b8f6a4e-9a53-4d0e-9a3a-4b5e0e5a1c7d';
const AGORA = new Date('2026-01-02T10:01:00Z');
const morto = {
  id: ID,
  tipo: 'ReposicaoSolicitada',
  status: 'FAILED',
  tentativas: 3,
  criadoEm: '2026-01-02T10:00:00Z',
  proximaTentativaEm: '2026-01-02T10:00:48Z',
  enviadoEm: null,
  ultimoErro: 'envio de ReposicaoSolicitada falhou: item 400: sku inválido',
  payload: { sku: '7894900011517' },
  chave: '7894900011517',
};
const tentativas = [
  {
    numero: 3,
    em: '2026-01-02T10:00:48Z',
    resultado: 'falha_permanente',
    erro: 'envio de ReposicaoSolicitada falhou: item 400: sku inválido',
    status: 400,
  },
  {
    numero: 2,
    em: '2026-01-02T10:00:10Z',
    resultado: 'falha_transitoria',
    erro: 'envio de lote falhou: HTTP 503 Service Unavailable: ',
    status: 503,
  },
  {
    numero: 1,
    em: '2026-01-02T10:00:01Z',
    resultado: 'falha_transitoria',
    erro: 'estoque inalcançável: connection refused',
  },
];
const LISTA = 'GET /api/operacao/outbox/eventos?pagina=1&tamanho=20&status=FAILED';
const DETALHE = `GET /api/operacao/outbox/eventos/${ID}`;

function abrir(detalhe: Parameters<typeof fetchFalso>[0][string]) {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(AGORA);
  document.cookie = 'XSRF-ESTOQUE=tok; path=/';
  const f = fetchFalso({
    'GET /api/operacao/outbox': {
      status: 200,
      corpo: { pendentes: 0, enviados: 0, falhos: 1, pendenteMaisAntigoEm: null },
    },
    [LISTA]: {
      status: 200,
      corpo: { eventos: [morto], pagina: 1, tamanho: 20, total: 1, opcoesPorTipo: {} },
    },
    [DETALHE]: detalhe,
  });
  renderizar(<ConsoleEventos api={apiEventos(pedir)} chave="painel" servico="mercado" />);
  return f;
}

const pedidosDoDetalhe = (f: ReturnType<typeof fetchFalso>) =>
  f.mock.calls.filter(([url]) => url === `/api/operacao/outbox/eventos/${ID}`).length;

afterEach(() => {
  vi.useRealTimers();
});

describe('ConsoleEventos: attempt history', () => {
  it('asks for the history only when opened, and shows it newest first with outcome, status and error', async () => {
    const f = abrir({
      status: 200,
      corpo: { evento: morto, opcoes: [], historico: [], tentativas },
    });
    const botao = await screen.findByRole('button', { name: 'Tentativas' });
    expect(botao.getAttribute('aria-expanded')).toBe('false');
    expect(pedidosDoDetalhe(f)).toBe(0);

    fireEvent.click(botao);
    expect(botao.getAttribute('aria-expanded')).toBe('true');
    const lista = await screen.findByRole('list', {
      name: 'Tentativas de entrega, da mais recente à mais antiga',
    });
    const itens = within(lista).getAllByRole('listitem');
    expect(itens.map((li) => li.getAttribute('data-numero'))).toEqual(['3', '2', '1']);
    expect(itens[0].textContent).toContain('Tentativa 3 · há 12 s · falha definitiva · HTTP 400');
    expect(itens[1].textContent).toContain('Tentativa 2 · há 50 s · falha transitória · HTTP 503');
    // No answer from the peer: no status.
    expect(itens[2].textContent).toContain('Tentativa 1 · há 59 s · falha transitória');
    expect(itens[2].textContent).not.toContain('HTTP');
    expect(within(itens[2]).getByText('estoque inalcançável: connection refused')).toBeTruthy();
    expect(within(itens[0]).getByText('há 12 s').getAttribute('dateTime')).toBe(
      '2026-01-02T10:00:48Z',
    );
    expect(pedidosDoDetalhe(f)).toBe(1);

    fireEvent.click(screen.getByRole('button', { name: 'Tentativas' }));
    expect(screen.queryByTestId('evento-tentativas')).toBeNull();
  });

  it('says when nothing failed and when the history cannot be loaded', async () => {
    abrir({ status: 200, corpo: { evento: morto, opcoes: [], historico: [], tentativas: [] } });
    fireEvent.click(await screen.findByRole('button', { name: 'Tentativas' }));
    expect(await screen.findByText(/Nenhuma falha registrada/)).toBeTruthy();
  });

  it('names the failure to load the history in an alert', async () => {
    abrir({ status: 503, corpo: { detail: 'banco indisponível' } });
    fireEvent.click(await screen.findByRole('button', { name: 'Tentativas' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Não foi possível carregar as tentativas. Tente de novo em instantes.',
    );
  });
});
