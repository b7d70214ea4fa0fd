// The event console's issue-26 additions: SKU column, what a dead letter blocks, search by id or
// SKU, "próxima tentativa em 4 s", the peer's silence, human type labels.
import { act, fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { ConsoleEventos } from '../../../shared/ConsoleEventos';
import { apiEventos, proximaEm } from '../../../shared/eventos';
import { pedir } from '../api';
import { fetchFalso, renderizar } from '../teste-util';

const ID = '0b8f6a4e-9a53-4d0e-9a3a-4b5e0e5a1c7d';
const BLOQUEIA =
  'As reposições do SKU 7894900011517 esperam: o mercado não pede outra enquanto este pedido não for reenviado, refeito ou descartado.';
const morto = {
  id: ID,
  tipo: 'ReposicaoSolicitada',
  status: 'FAILED',
  tentativas: 5,
  criadoEm: '2026-01-02T10:00:00Z',
  proximaTentativaEm: '2026-01-02T10:00:00Z',
  enviadoEm: null,
  ultimoErro: 'HTTP 400: sku inválido',
  payload: { sku: '7894900011517' },
  chave: '7894900011517',
  bloqueia: BLOQUEIA,
};
const resumo = (silencio: number | null) => ({
  pendentes: 3,
  enviados: 10,
  falhos: 1,
  pendenteMaisAntigoEm: null,
  pendenteMaisAntigoSegundos: null,
  retencaoInboxSegundos: 2592000,
  esperandoNovaTentativa: 3,
  ultimoEnvioEm: null,
  semRespostaDesde: silencio == null ? null : '2026-01-02T10:00:00Z',
  semRespostaSegundos: silencio,
});
const pagina = (eventos: unknown[]) => ({
  status: 200,
  corpo: { eventos, pagina: 1, tamanho: 20, total: eventos.length, opcoesPorTipo: {} },
});

function abrir(extra: Parameters<typeof fetchFalso>[0] = {}, silencio: number | null = null) {
  document.cookie = 'XSRF-MERCADO=tok; path=/';
  const f = fetchFalso({
    'GET /api/operacao/outbox': { status: 200, corpo: resumo(silencio) },
    'GET /api/operacao/outbox/eventos?pagina=1&tamanho=20&status=FAILED': pagina([morto]),
    ...extra,
  });
  renderizar(<ConsoleEventos api={apiEventos(pedir)} chave="painel" servico="mercado" />);
  return f;
}

describe('ConsoleEventos (issue 26)', () => {
  it('shows the SKU, the type for people and what a dead letter blocks', async () => {
    abrir();
    const linha = (await screen.findByText(BLOQUEIA)).closest('tr')!;
    expect(within(linha).getByText('7894900011517')).toBeTruthy();
    expect(within(linha).getByText('Pedido de reposição')).toBeTruthy();
    expect(within(linha).getByText('ReposicaoSolicitada')).toBeTruthy();
    expect(screen.getByRole('columnheader', { name: 'Evento' })).toBeTruthy();
    // Each cell names its column: the 375 px cards show it above the value.
    expect(within(linha).getByText('falhou').closest('td')!.getAttribute('data-rotulo')).toBe(
      'Status',
    );
  });

  it('searches by SKU in every status, and says when nothing matches', async () => {
    const f = abrir({
      'GET /api/operacao/outbox/eventos?pagina=1&tamanho=20&busca=7894900011517': pagina([
        { ...morto, id: 'e2', status: 'SENT', bloqueia: null, enviadoEm: '2026-01-02T10:00:01Z' },
      ]),
      'GET /api/operacao/outbox/eventos?pagina=1&tamanho=20&busca=123': pagina([]),
    });
    await screen.findByText(BLOQUEIA);
    const campo = screen.getByLabelText('Buscar por id, SKU ou produto');
    fireEvent.change(campo, { target: { value: ' 7894900011517 ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Buscar' }));
    expect(await screen.findByText('enviado')).toBeTruthy();
    expect(f).toHaveBeenCalledWith(
      '/api/operacao/outbox/eventos?pagina=1&tamanho=20&busca=7894900011517',
      expect.anything(),
    );
    fireEvent.change(campo, { target: { value: '123' } });
    fireEvent.click(screen.getByRole('button', { name: 'Buscar' }));
    expect(
      await screen.findByText(
        'Nenhum evento com “123” no id, no SKU ou no nome do produto. Confira o texto ou escolha outro status.',
      ),
    ).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Limpar busca' }));
    expect(await screen.findByText(BLOQUEIA)).toBeTruthy();
  });

  it('counts the next attempt down from now', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, now: new Date('2026-01-02T10:00:00Z') });
    abrir({
      'GET /api/operacao/outbox/eventos?pagina=1&tamanho=20&status=PENDING': pagina([
        {
          ...morto,
          status: 'PENDING',
          tentativas: 2,
          bloqueia: null,
          proximaTentativaEm: '2026-01-02T10:00:04Z',
        },
      ]),
    });
    await screen.findByText(BLOQUEIA);
    fireEvent.change(screen.getByLabelText('Status'), { target: { value: 'PENDING' } });
    expect(await screen.findByText(/^em [34] s$/)).toBeTruthy();
    await act(async () => {
      vi.advanceTimersByTime(5000);
    });
    expect(await screen.findByText('agora')).toBeTruthy();
  });

  it('says the peer is silent only after 30 s, naming it and what waits', async () => {
    abrir({}, 95);
    const aviso = await screen.findByTestId('eventos-sem-resposta');
    expect(aviso.textContent).toBe(
      'O estoque não responde há 1 min. 3 eventos esperam nova tentativa. As entregas retomam sozinhas quando ele voltar: confira se o estoque está no ar.',
    );
  });

  it('stays quiet through a routine retry', async () => {
    abrir({}, 12);
    await screen.findByText(BLOQUEIA);
    expect(screen.queryByTestId('eventos-sem-resposta')).toBeNull();
  });

  it('words relative times in pt-BR', () => {
    const t0 = Date.parse('2026-01-02T10:00:00Z');
    expect(proximaEm('2026-01-02T10:00:04Z', t0)).toBe('em 4 s');
    expect(proximaEm('2026-01-02T10:03:00Z', t0)).toBe('em 3 min');
    expect(proximaEm('2026-01-02T09:59:00Z', t0)).toBe('agora');
  });
});
