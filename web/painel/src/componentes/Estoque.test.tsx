import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../App';
import { fetchFalso, renderizar } from '../teste-util';
import { PaginaEstoque, PaginaSku } from './Estoque';

const COCA = '7894900011517';
const item = (sku: string, estado: string, valido: number, vencido: number) => ({
  sku,
  descricao: `PRODUTO ${sku}`,
  categoria: null,
  estado,
  saldoValido: valido,
  saldoVencido: vencido,
  demandaAberta: estado === 'zerado' ? 7 : 0,
  demandasAbertas: estado === 'zerado' ? 1 : 0,
  proximaValidade: valido > 0 ? '2026-10-05' : null,
});

const detalhe = (vencidoDisponivel: number) => ({
  ...item(COCA, 'com-saldo', 22, vencidoDisponivel),
  descricao: 'COCA COLA 2L PET',
  ncm: '22021000',
  tags: null,
  lotes: [
    {
      codigoLote: 'C-10',
      quantidade: 10,
      quantidadeDisponivel: 10,
      validade: '2026-10-05',
      vencido: false,
      recebidoEm: '2026-09-20T10:00:00Z',
    },
    {
      codigoLote: 'C-40',
      quantidade: 12,
      quantidadeDisponivel: 12,
      validade: null,
      vencido: false,
      recebidoEm: '2026-09-20T10:00:00Z',
    },
    ...(vencidoDisponivel > 0
      ? [
          {
            codigoLote: 'C-VENCIDO',
            quantidade: 4,
            quantidadeDisponivel: vencidoDisponivel,
            validade: '2026-09-01',
            vencido: true,
            recebidoEm: '2026-08-01T10:00:00Z',
          },
        ]
      : []),
  ],
  movimentos: [
    ...(vencidoDisponivel > 0
      ? []
      : [
          {
            tipo: 'baixa',
            quando: '2026-09-25T12:00:00Z',
            codigoLote: 'C-VENCIDO',
            qtd: 4,
            operador: 'operador',
            motivo: 'vencido',
          },
        ]),
    { tipo: 'expedicao', quando: '2026-09-20T10:00:00Z', codigoLote: 'C-10', qtd: 3 },
    {
      tipo: 'entrada',
      quando: '2026-09-20T10:00:00Z',
      codigoLote: 'C-10',
      qtd: 10,
      operador: 'ana',
    },
  ],
});

afterEach(() => {
  window.location.hash = '';
});

describe('PaginaEstoque', () => {
  it('lists each SKU with its state, valid and expired balance, demand and next expiry', async () => {
    fetchFalso({
      'GET /api/painel/estoque?estado=sem-saldo-valido': {
        status: 200,
        corpo: {
          itens: [
            item('2000000000114', 'so-vencido', 0, 60),
            item('7891962047205', 'zerado', 0, 0),
          ],
          total: 2,
          pagina: 1,
          tamanho: 20,
        },
      },
    });
    renderizar(<PaginaEstoque filtro={{ estado: 'sem-saldo-valido' }} />);
    const linha = (await screen.findByText('2000000000114')).closest('tr')!;
    expect(within(linha).getByText('Só vencido')).toBeTruthy();
    expect(within(linha).getByText('60')).toBeTruthy();
    expect(linha.querySelector('td[data-rotulo="Vencido"]')?.textContent).toBe('60');
    expect(linha.querySelector('td[data-rotulo="Saldo válido"]')?.textContent).toBe('0');
    const zerado = screen.getByText('7891962047205').closest('tr')!;
    expect(within(zerado).getByText('Zerado')).toBeTruthy();
    expect(zerado.querySelector('td[data-rotulo="Demanda"]')?.textContent).toBe('7');
    expect(screen.getByTestId('estoque-total').textContent).toBe('2 SKUs');
    expect((screen.getByLabelText('Situação') as HTMLSelectElement).value).toBe('sem-saldo-valido');
    expect(screen.getByText('2000000000114').closest('a')?.getAttribute('href')).toBe(
      '#/estoque/2000000000114',
    );
  });

  it('says what was not found, and searching or choosing a state changes the link', async () => {
    fetchFalso({
      'GET /api/painel/estoque?busca=cafe': {
        status: 200,
        corpo: { itens: [], total: 0, pagina: 1, tamanho: 20 },
      },
    });
    renderizar(<PaginaEstoque filtro={{ busca: 'cafe' }} />);
    expect(await screen.findByText('Nenhum SKU encontrado para “cafe”.')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Situação'), { target: { value: 'vencendo' } });
    expect(window.location.hash).toBe('#/estoque?busca=cafe&estado=vencendo');
    fireEvent.change(screen.getByLabelText('Buscar'), { target: { value: 'arroz' } });
    fireEvent.click(screen.getByRole('button', { name: 'Buscar' }));
    expect(window.location.hash).toBe('#/estoque?busca=arroz');
  });

  it('pages when there is more than one page', async () => {
    fetchFalso({
      'GET /api/painel/estoque?pagina=2': {
        status: 200,
        corpo: { itens: [item(COCA, 'com-saldo', 5, 0)], total: 45, pagina: 2, tamanho: 20 },
      },
    });
    renderizar(<PaginaEstoque filtro={{ pagina: 2 }} />);
    expect(await screen.findByText('Página 2 de 3')).toBeTruthy();
    expect(screen.getByText('Anterior').getAttribute('href')).toBe('#/estoque');
    expect(screen.getByText('Próxima').getAttribute('href')).toBe('#/estoque?pagina=3');
  });
});

describe('PaginaSku', () => {
  it('shows the lots in FEFO order, writes off an expired one after a confirmation, and its history', async () => {
    let corpo: unknown = null;
    document.cookie = 'XSRF-ESTOQUE=tok; path=/';
    let baixado = false;
    const f = fetchFalso({
      [`GET /api/painel/estoque/${COCA}`]: () => ({
        status: 200,
        corpo: detalhe(baixado ? 0 : 4),
      }),
      [`POST /api/painel/estoque/${COCA}/lotes/C-VENCIDO/baixa`]: (init) => {
        expect(new Headers(init?.headers).get('X-XSRF-TOKEN')).toBe('tok');
        corpo = JSON.parse(String(init?.body));
        baixado = true;
        return {
          status: 200,
          corpo: {
            sku: COCA,
            codigoLote: 'C-VENCIDO',
            qtd: 4,
            motivo: 'vencido',
            restante: 0,
            operador: 'operador',
            baixadoEm: '2026-09-25T12:00:00Z',
            saldoValido: 22,
            saldoVencido: 0,
          },
        };
      },
    });
    renderizar(<PaginaSku sku={COCA} />);
    expect(await screen.findByRole('heading', { name: 'COCA COLA 2L PET' })).toBeTruthy();
    const lotes = document.querySelectorAll('tr[data-lote]');
    expect([...lotes].map((l) => l.getAttribute('data-lote'))).toEqual([
      'C-10',
      'C-40',
      'C-VENCIDO',
    ]);
    expect(within(lotes[0] as HTMLElement).getByText('Próximo a sair')).toBeTruthy();
    expect(within(lotes[0] as HTMLElement).getByText('05/10/2026')).toBeTruthy();
    expect(within(lotes[1] as HTMLElement).getByText('Sem validade')).toBeTruthy();
    expect(within(lotes[2] as HTMLElement).getByText('Vencido')).toBeTruthy();
    expect(screen.getByTestId('sku-saldo-vencido').textContent).toBe('4');

    fireEvent.click(within(lotes[2] as HTMLElement).getByRole('button', { name: 'Dar baixa' }));
    const form = screen.getByRole('form', { name: 'Dar baixa no lote C-VENCIDO' });
    expect((within(form).getByLabelText('Quantidade (de 4)') as HTMLInputElement).value).toBe('4');
    expect((within(form).getByLabelText('Motivo') as HTMLSelectElement).value).toBe('vencido');
    expect(
      within(form).getByText(
        'Dar baixa em 4 unidades do lote C-VENCIDO (vencido)? Elas saem do estoque de vez.',
      ),
    ).toBeTruthy();
    expect(f.mock.calls.some(([, i]) => i?.method === 'POST')).toBe(false);
    fireEvent.click(within(form).getByRole('button', { name: 'Confirmar baixa' }));

    expect(
      await screen.findByText(
        'Baixa registrada: 4 unidades do lote C-VENCIDO saíram do estoque (vencido). O lote ficou sem unidades.',
      ),
    ).toBeTruthy();
    expect(corpo).toEqual({ quantidade: 4, motivo: 'vencido', quantidadeDisponivel: 4 });
    await waitFor(() => expect(document.querySelector('tr[data-lote="C-VENCIDO"]')).toBeNull());
    const baixa = document.querySelector('tr[data-movimento="baixa"]') as HTMLElement;
    expect(within(baixa).getByText('Baixa · Vencido')).toBeTruthy();
    expect(within(baixa).getByText('operador')).toBeTruthy();
    expect(within(baixa).getByText('−4')).toBeTruthy();
    // Every movement says who and when, with the date: the entry its operator, a shipment the system.
    const entrada = document.querySelector('tr[data-movimento="entrada"]') as HTMLElement;
    expect(within(entrada).getByText('ana')).toBeTruthy();
    expect(within(entrada).getByText(/^20\/09\/2026 às \d\d:\d\d$/)).toBeTruthy();
    const expedicao = document.querySelector('tr[data-movimento="expedicao"]') as HTMLElement;
    expect(within(expedicao).getByText('Sistema (reposição)')).toBeTruthy();
  });

  it('writes off part of a valid lot for a reason, and refuses a quantity out of range without sending it', async () => {
    document.cookie = 'XSRF-ESTOQUE=tok; path=/';
    let corpo: unknown = null;
    const f = fetchFalso({
      [`GET /api/painel/estoque/${COCA}`]: { status: 200, corpo: detalhe(4) },
      [`POST /api/painel/estoque/${COCA}/lotes/C-10/baixa`]: (init) => {
        corpo = JSON.parse(String(init?.body));
        return {
          status: 200,
          corpo: {
            sku: COCA,
            codigoLote: 'C-10',
            qtd: 3,
            motivo: 'avaria',
            restante: 7,
            operador: 'operador',
            baixadoEm: '2026-09-25T12:00:00Z',
            saldoValido: 19,
            saldoVencido: 4,
          },
        };
      },
    });
    renderizar(<PaginaSku sku={COCA} />);
    await screen.findByRole('heading', { name: 'COCA COLA 2L PET' });
    const linha = document.querySelector('tr[data-lote="C-10"]') as HTMLElement;
    fireEvent.click(within(linha).getByRole('button', { name: 'Dar baixa' }));
    const form = screen.getByRole('form', { name: 'Dar baixa no lote C-10' });
    const motivo = within(form).getByLabelText('Motivo') as HTMLSelectElement;
    expect([...motivo.options].map((o) => o.text)).toEqual([
      'Avaria',
      'Furto',
      'Ajuste de inventário',
    ]);
    const qtd = within(form).getByLabelText('Quantidade (de 10)');
    for (const errado of ['11', '0', '2,5', '']) {
      fireEvent.change(qtd, { target: { value: errado } });
      fireEvent.click(within(form).getByRole('button', { name: 'Confirmar baixa' }));
      expect(within(form).getByRole('alert').textContent).toBe(
        'Informe um número inteiro de 1 a 10.',
      );
    }
    expect(f.mock.calls.some(([, i]) => i?.method === 'POST')).toBe(false);
    fireEvent.change(qtd, { target: { value: '3' } });
    fireEvent.change(motivo, { target: { value: 'avaria' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Confirmar baixa' }));
    expect(
      await screen.findByText(
        'Baixa registrada: 3 unidades do lote C-10 saíram do estoque (avaria). Restam 7 unidades no lote.',
      ),
    ).toBeTruthy();
    expect(corpo).toEqual({ quantidade: 3, motivo: 'avaria', quantidadeDisponivel: 10 });
    expect(screen.queryByRole('form', { name: 'Dar baixa no lote C-10' })).toBeNull();
  });

  it('shows the refusal in pt-BR, and an unknown SKU says so', async () => {
    document.cookie = 'XSRF-ESTOQUE=tok; path=/';
    const recusa =
      'O lote C-VENCIDO já não tem unidades: não há o que baixar. Veja o histórico do SKU.';
    fetchFalso({
      [`GET /api/painel/estoque/${COCA}`]: { status: 200, corpo: detalhe(4) },
      [`POST /api/painel/estoque/${COCA}/lotes/C-VENCIDO/baixa`]: {
        status: 409,
        corpo: { status: 409, detail: recusa },
      },
      'GET /api/painel/estoque/7890000000017': {
        status: 404,
        corpo: {
          status: 404,
          detail: 'O SKU 7890000000017 não está cadastrado no estoque. Confira o código.',
        },
      },
    });
    const { unmount } = renderizar(<PaginaSku sku={COCA} />);
    await screen.findByRole('heading', { name: 'COCA COLA 2L PET' });
    const vencido = document.querySelector('tr[data-lote="C-VENCIDO"]') as HTMLElement;
    fireEvent.click(within(vencido).getByRole('button', { name: 'Dar baixa' }));
    fireEvent.click(screen.getByRole('button', { name: 'Confirmar baixa' }));
    expect(await screen.findByText(recusa)).toBeTruthy();
    unmount();
    renderizar(<PaginaSku sku="7890000000017" />);
    expect(
      await screen.findByText(
        'O SKU 7890000000017 não está cadastrado no estoque. Confira o código.',
      ),
    ).toBeTruthy();
  });
});

describe('Painel → Estoque', () => {
  it('each KPI links to the inventory filtered, and the hash opens it', async () => {
    document.cookie = 'XSRF-ESTOQUE=tok; path=/';
    fetchFalso({
      'GET /api/sessao?opcional=true': { status: 200, corpo: { usuario: 'operador' } },
      'GET /api/painel/resumo': {
        status: 200,
        corpo: { skusCadastrados: 3, skusSemSaldo: 2, demandasAbertas: 1, lotesVencendo: 1 },
      },
      'GET /api/painel/estoque?estado=sem-saldo-valido': {
        status: 200,
        corpo: {
          itens: [item('2000000000114', 'so-vencido', 0, 60)],
          total: 1,
          pagina: 1,
          tamanho: 20,
        },
      },
    });
    window.location.hash = '#/estoque?estado=sem-saldo-valido';
    renderizar(<App />);
    expect(await screen.findByRole('heading', { name: 'Estoque' })).toBeTruthy();
    expect(await screen.findByText('2000000000114')).toBeTruthy();
    expect(screen.getByTestId('kpi-skusSemSaldo').getAttribute('href')).toBe(
      '#/estoque?estado=sem-saldo-valido',
    );
    expect(screen.getByTestId('kpi-lotesVencendo').getAttribute('href')).toBe(
      '#/estoque?estado=vencendo',
    );
    expect(screen.getByTestId('kpi-demandasAbertas').getAttribute('href')).toBe(
      '#/estoque?estado=com-demanda',
    );
    expect(screen.getByTestId('kpi-skusCadastrados').getAttribute('href')).toBe('#/estoque');
    expect(screen.getByRole('link', { name: 'Estoque' }).getAttribute('aria-current')).toBe('page');
    expect(document.querySelector('#entrada-lote')).toBeNull();
  });
});
