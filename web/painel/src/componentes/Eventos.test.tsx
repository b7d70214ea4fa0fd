import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ConsoleEventos } from '../../../shared/ConsoleEventos';
import { apiEventos } from '../../../shared/eventos';
import { pedir } from '../api';
import { fetchFalso, renderizar } from '../teste-util';

const ID = '0b8f6a4e-9a53-4d0e-9a3a-4b5e0e5a1c7d';
const falho = {
  id: ID,
  tipo: 'ReposicaoEnviada',
  status: 'FAILED',
  tentativas: 1,
  criadoEm: '2026-01-02T10:00:00Z',
  proximaTentativaEm: '2026-01-02T10:00:00Z',
  enviadoEm: null,
  ultimoErro: 'HTTP 400: evento inválido',
  payload: { sku: '7894900011517', qtd: 3 },
};
const resumo = {
  pendentes: 2,
  enviados: 1248,
  falhos: 1,
  pendenteMaisAntigoEm: '2026-01-02T10:00:00Z',
  pendenteMaisAntigoSegundos: 330,
  retencaoInboxSegundos: 2592000,
};
const LISTA = 'GET /api/operacao/outbox/eventos?pagina=1&tamanho=20&status=FAILED';

const OPCOES = [
  {
    acao: 'reenviar',
    rotulo: 'Reenviar',
    efeito: 'Reenvia a resposta como está.',
    permitida: true,
  },
  {
    acao: 'descartar',
    rotulo: 'Descartar',
    efeito: 'as unidades já saíram do lote: use “Reemitir”.',
    permitida: false,
  },
  {
    acao: 'refazer',
    rotulo: 'Reemitir',
    efeito: 'Grava uma nova ReposicaoEnviada da mesma remessa.',
    permitida: true,
  },
];

function console_(extra: Parameters<typeof fetchFalso>[0] = {}, opcoesPorTipo?: unknown) {
  document.cookie = 'XSRF-ESTOQUE=tok; path=/';
  const f = fetchFalso({
    'GET /api/operacao/outbox': { status: 200, corpo: resumo },
    [LISTA]: {
      status: 200,
      corpo: { eventos: [falho], pagina: 1, tamanho: 20, total: 1, opcoesPorTipo },
    },
    ...extra,
  });
  renderizar(<ConsoleEventos api={apiEventos(pedir)} chave="painel" servico="estoque" />);
  return f;
}

describe('ConsoleEventos', () => {
  it('shows the counts, the oldest pending age and what failed with its error and payload', async () => {
    console_();
    expect(await screen.findByText('HTTP 400: evento inválido')).toBeTruthy();
    expect(within(screen.getByTestId('eventos-enviados')).getByText('1.248')).toBeTruthy();
    expect(screen.getByText('mais antigo há 5 min')).toBeTruthy();
    expect(screen.getByText(/"qtd": 3/)).toBeTruthy();
  });

  it('replays after a confirmation and offers to force when the event is too old', async () => {
    let forcado = false;
    const f = console_({
      [`POST /api/operacao/outbox/eventos/${ID}/reenvio`]: {
        status: 409,
        corpo: { detail: `o evento ${ID} foi criado há 40 dias, além de inbox.retencao (30 dias)` },
      },
      [`POST /api/operacao/outbox/eventos/${ID}/reenvio?forcar=true`]: () => {
        forcado = true;
        return { status: 200, corpo: { reenviados: 1 } };
      },
      [`GET /api/operacao/outbox/eventos/${ID}`]: {
        status: 200,
        corpo: {
          evento: { ...falho, status: 'SENT', enviadoEm: '2026-01-02T10:05:00Z' },
          opcoes: [],
          historico: [],
        },
      },
    });
    fireEvent.click(await screen.findByRole('button', { name: 'Reenviar' }));
    expect(screen.getByText('Reenviar este evento?')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Confirmar reenvio' }));
    expect(await screen.findByText(/além de inbox.retencao/)).toBeTruthy();
    const post = f.mock.calls.find(([u]) => String(u).endsWith('/reenvio'));
    expect(new Headers(post?.[1]?.headers).get('X-XSRF-TOKEN')).toBe('tok');
    fireEvent.click(screen.getByRole('button', { name: 'Reenviar mesmo assim' }));
    await waitFor(() => expect(forcado).toBe(true));
    // The outcome, once the event is delivered — not the replay's acceptance.
    expect(
      await screen.findByText('Evento entregue: o mercado recebeu o reenvio.', undefined, {
        timeout: 3000,
      }),
    ).toBeTruthy();
  });

  it('follows a replay and says when the event is refused again (issue 39)', async () => {
    let detalhes = 0;
    console_({
      [`POST /api/operacao/outbox/eventos/${ID}/reenvio`]: {
        status: 200,
        corpo: { reenviados: 1 },
      },
      [`GET /api/operacao/outbox/eventos/${ID}`]: () => {
        detalhes += 1;
        // First still on its way, then refused again by the peer.
        const evento =
          detalhes === 1
            ? { ...falho, status: 'PENDING', tentativas: 0, ultimoErro: null }
            : {
                ...falho,
                status: 'FAILED',
                tentativas: 1,
                ultimoErro: 'HTTP 400: SKU desconhecido',
              };
        return { status: 200, corpo: { evento, opcoes: [], historico: [] } };
      },
    });
    fireEvent.click(await screen.findByRole('button', { name: 'Reenviar' }));
    fireEvent.click(screen.getByRole('button', { name: 'Confirmar reenvio' }));
    const aviso = await screen.findByTestId('eventos-aviso');
    await waitFor(() => expect(aviso.textContent).toContain('aguardando a entrega ao mercado'));
    await waitFor(
      () =>
        expect(screen.getByTestId('eventos-aviso').textContent).toContain(
          'O reenvio não deu certo: o evento falhou de novo (HTTP 400: SKU desconhecido).',
        ),
      { timeout: 4000 },
    );
    expect(screen.getByTestId('eventos-aviso').className).toContain('aviso-erro');
    expect(screen.queryByText(/Evento reenviado/)).toBeNull();
  });

  it('discards only after a confirmation with a reason; cancel leaves it', async () => {
    let descartado = false;
    console_({
      [`DELETE /api/operacao/outbox/eventos/${ID}?motivo=SKU+suspenso`]: () => {
        descartado = true;
        return { status: 200, corpo: { ...falho, acao: 'descartar', resultado: '' } };
      },
    });
    fireEvent.click(await screen.findByRole('button', { name: 'Descartar' }));
    fireEvent.click(screen.getByRole('button', { name: 'Cancelar' }));
    expect(descartado).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: 'Descartar' }));
    const confirmar = screen.getByRole('button', { name: 'Confirmar descarte' });
    expect((confirmar as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(screen.getByLabelText('Motivo'), { target: { value: 'SKU suspenso' } });
    fireEvent.click(confirmar);
    expect(await screen.findByText('Evento ReposicaoEnviada descartado.')).toBeTruthy();
    expect(descartado).toBe(true);
  });

  it('says what each action does before it is confirmed, and a refused one says why', async () => {
    let reemitido = false;
    console_(
      {
        [`POST /api/operacao/outbox/eventos/${ID}/refazer?motivo=rel%C3%B3gio`]: () => {
          reemitido = true;
          return {
            status: 200,
            corpo: { ...falho, acao: 'refazer', resultado: 'remessa reemitida como X' },
          };
        },
      },
      { ReposicaoEnviada: OPCOES },
    );
    fireEvent.click(await screen.findByRole('button', { name: 'Descartar' }));
    expect(screen.getByTestId('evento-efeito').textContent).toBe(
      'Não é possível: as unidades já saíram do lote: use “Reemitir”.',
    );
    expect(screen.queryByRole('button', { name: 'Confirmar descarte' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Fechar' }));
    fireEvent.click(screen.getByRole('button', { name: 'Reemitir' }));
    expect(screen.getByText('Reemitir?')).toBeTruthy();
    expect(screen.getByTestId('evento-efeito').textContent).toContain('mesma remessa');
    fireEvent.change(screen.getByLabelText('Motivo'), { target: { value: 'relógio' } });
    fireEvent.click(screen.getByRole('button', { name: 'Confirmar' }));
    expect(
      await screen.findByText('Evento ReposicaoEnviada refeito. Remessa reemitida como X.'),
    ).toBeTruthy();
    expect(reemitido).toBe(true);
  });
});
