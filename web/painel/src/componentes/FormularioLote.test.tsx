import { act, fireEvent, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fetchFalso, renderizar } from '../teste-util';
import { FormularioLote, hojeSaoPaulo } from './FormularioLote';

const PAO = '7891962047205';
const NOVO = '7890000000123';

async function digitarSku(sku: string) {
  fireEvent.change(screen.getByLabelText('SKU/EAN'), { target: { value: sku } });
  await act(async () => void (await vi.advanceTimersByTimeAsync(300)));
}

function preencher(qtd: string, codigo: string, validade = '') {
  fireEvent.change(screen.getByLabelText('Quantidade'), { target: { value: qtd } });
  fireEvent.change(screen.getByLabelText('Código do lote'), { target: { value: codigo } });
  if (validade)
    fireEvent.change(screen.getByLabelText('Validade'), { target: { value: validade } });
}

/** estoque's answer to the lookup of PAO: what every test shares, and the test's own fields. */
const consultaPao = (campos: Record<string, unknown>) => ({
  [`GET /api/produtos/${PAO}?opcional=true`]: {
    status: 200,
    corpo: {
      sku: PAO,
      descricao: 'PAO DE FORMA',
      ncm: '19059090',
      tags: null,
      categoria: null,
      ...campos,
    },
  },
});

/** estoque's 201 to `POST /lotes`: lot 9 of PAO, classified, unless the test says otherwise. */
const loteRegistrado = (campos: Record<string, unknown>) => ({
  'POST /api/lotes': {
    status: 201,
    corpo: { loteId: 9, sku: PAO, classificado: true, demandasAtendidas: 0, ...campos },
  },
});

type Fetch = ReturnType<typeof fetchFalso>;

/** The form's `POST /lotes` call: its index among the calls, and its JSON body. */
const chamadaPost = (f: Fetch) =>
  f.mock.calls.findIndex((c) => (c as unknown as [string, RequestInit])[1]?.method === 'POST');
const corpoDoPost = (f: Fetch) =>
  JSON.parse((f.mock.calls[chamadaPost(f)] as unknown as [string, RequestInit])[1].body as string);

describe('FormularioLote', () => {
  it('an invalid SKU is said so and never looked up', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const f = fetchFalso({});
    renderizar(<FormularioLote />);
    await digitarSku('12345');
    expect(screen.getByText('EAN-8 ou GTIN de 12 a 14 dígitos.')).toBeTruthy();
    expect(f).not.toHaveBeenCalled();
    expect(
      screen.getByText(
        'Ao dar entrada, o Girô classifica as tags do produto e atende a demanda reprimida deste SKU automaticamente.',
      ),
    ).toBeTruthy();
  });

  it('waits 300 ms of quiet before looking up', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const f = fetchFalso(consultaPao({ saldoDisponivel: 1248 }));
    renderizar(<FormularioLote />);
    fireEvent.change(screen.getByLabelText('SKU/EAN'), { target: { value: PAO } });
    await act(async () => void (await vi.advanceTimersByTimeAsync(250)));
    expect(f).not.toHaveBeenCalled();
    await act(async () => void (await vi.advanceTimersByTimeAsync(60)));
    expect(await screen.findByText('PAO DE FORMA · saldo 1.248')).toBeTruthy();
    expect(screen.queryByLabelText('Descrição')).toBeNull();
  });

  it('a known SKU: posts the lot without descrição/NCM and says what happened', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    document.cookie = 'XSRF-ESTOQUE=tok; path=/';
    const f = fetchFalso({
      ...consultaPao({ tags: ['pao'], categoria: 'padaria', saldoDisponivel: 60 }),
      ...loteRegistrado({ saldoDisponivel: 108, demandasAtendidas: 1 }),
    });
    renderizar(<FormularioLote />);
    await digitarSku(PAO);
    await screen.findByText('PAO DE FORMA · saldo 60');
    // A validade ahead of today (a past one is asked about first: see below).
    const validade = hojeSaoPaulo(Date.now() + 90 * 86_400_000);
    preencher('60', 'L-PAO-02', validade);
    fireEvent.click(screen.getByRole('button', { name: 'Dar entrada no estoque' }));
    expect((await screen.findByTestId('resultado-lote')).textContent).toBe(
      'Lote L-PAO-02 registrado. Saldo do SKU: 108. 1 demanda reprimida atendida.',
    );
    const post = chamadaPost(f);
    expect(corpoDoPost(f)).toEqual({
      sku: PAO,
      codigoLote: 'L-PAO-02',
      quantidade: 60,
      validade,
    });
    expect(
      new Headers((f.mock.calls[post] as unknown as [string, RequestInit])[1].headers).get(
        'X-XSRF-TOKEN',
      ),
    ).toBe('tok');
    // The form is reset.
    expect((screen.getByLabelText('SKU/EAN') as HTMLInputElement).value).toBe('');
    expect((screen.getByLabelText('Código do lote') as HTMLInputElement).value).toBe('');
  });

  it('a validade already past: says so, asks before sending, and sends confirmarVencido once confirmed', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    document.cookie = 'XSRF-ESTOQUE=tok; path=/';
    const f = fetchFalso({
      ...consultaPao({ saldoDisponivel: 0, saldoVencido: 60 }),
      ...loteRegistrado({ saldoDisponivel: 0 }),
    });
    renderizar(<FormularioLote />);
    await digitarSku(PAO);
    await screen.findByText(
      'PAO DE FORMA · saldo 0 · 60 vencidas (sem saída: dê baixa no Estoque)',
    );
    const ontem = hojeSaoPaulo(Date.now() - 86_400_000);
    const [a, m, d] = ontem.split('-');
    const pergunta =
      `A validade ${d}/${m}/${a} já passou. O lote L-VENCIDO vai entrar no estoque como vencido: ` +
      'não sai para o mercado, não atende demanda nenhuma e fica no Estoque para dar baixa. ' +
      'Registrar mesmo assim?';
    preencher('5', 'L-VENCIDO', ontem);
    expect(
      screen.getByText(
        'Esta validade já passou: o lote não atende demanda nenhuma. Confira a data na embalagem.',
      ),
    ).toBeTruthy();

    // Submitting asks first and sends nothing.
    fireEvent.click(screen.getByRole('button', { name: 'Dar entrada no estoque' }));
    const grupo = screen.getByRole('group', { name: 'Confirmar lote vencido' });
    expect(grupo.textContent).toContain(pergunta);
    expect(chamadaPost(f)).toBe(-1);
    // "Corrigir a validade" goes back to the date, still without sending.
    fireEvent.click(screen.getByRole('button', { name: 'Corrigir a validade' }));
    expect(screen.queryByRole('group', { name: 'Confirmar lote vencido' })).toBeNull();
    expect(document.activeElement).toBe(screen.getByLabelText('Validade'));
    expect(chamadaPost(f)).toBe(-1);

    // Asked again, confirmed: sent, with confirmarVencido.
    fireEvent.click(screen.getByRole('button', { name: 'Dar entrada no estoque' }));
    fireEvent.click(screen.getByRole('button', { name: 'Registrar lote vencido' }));
    expect((await screen.findByTestId('resultado-lote')).textContent).toBe(
      'Lote L-VENCIDO registrado. Saldo do SKU: 0. Lote vencido: não sai para o mercado; dê baixa nele no Estoque.',
    );
    expect(corpoDoPost(f)).toEqual({
      sku: PAO,
      codigoLote: 'L-VENCIDO',
      quantidade: 5,
      validade: ontem,
      confirmarVencido: true,
    });
    expect(screen.queryByRole('group', { name: 'Confirmar lote vencido' })).toBeNull();
  });

  it('a validade of today is no expired lot: sent at once, without the question', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    document.cookie = 'XSRF-ESTOQUE=tok; path=/';
    const f = fetchFalso({
      ...consultaPao({ saldoDisponivel: 0 }),
      ...loteRegistrado({ saldoDisponivel: 5 }),
    });
    renderizar(<FormularioLote />);
    await digitarSku(PAO);
    await screen.findByText('PAO DE FORMA · saldo 0');
    preencher('5', 'L-HOJE', hojeSaoPaulo());
    fireEvent.click(screen.getByRole('button', { name: 'Dar entrada no estoque' }));
    await screen.findByTestId('resultado-lote');
    expect(screen.queryByRole('group', { name: 'Confirmar lote vencido' })).toBeNull();
    expect(corpoDoPost(f)).toEqual({
      sku: PAO,
      codigoLote: 'L-HOJE',
      quantidade: 5,
      validade: hojeSaoPaulo(),
    });
  });

  it('a changed entry is asked about again before it is sent', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    document.cookie = 'XSRF-ESTOQUE=tok; path=/';
    const f = fetchFalso({
      ...consultaPao({ saldoDisponivel: 0 }),
      ...loteRegistrado({ saldoDisponivel: 0 }),
    });
    renderizar(<FormularioLote />);
    await digitarSku(PAO);
    await screen.findByText('PAO DE FORMA · saldo 0');
    const ontem = hojeSaoPaulo(Date.now() - 86_400_000);
    preencher('5', 'L-VENCIDO', ontem);
    fireEvent.click(screen.getByRole('button', { name: 'Dar entrada no estoque' }));
    expect(screen.getByRole('group', { name: 'Confirmar lote vencido' })).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Quantidade'), { target: { value: '50' } });
    expect(screen.queryByRole('group', { name: 'Confirmar lote vencido' })).toBeNull();
    expect(chamadaPost(f)).toBe(-1);
  });

  it('a new SKU (204 with opcional=true, issue 39: no 404 in the console): shows Descrição and NCM and sends them', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    document.cookie = 'XSRF-ESTOQUE=tok; path=/';
    const f = fetchFalso({
      [`GET /api/produtos/${NOVO}?opcional=true`]: { status: 204 },
      ...loteRegistrado({ loteId: 10, sku: NOVO, saldoDisponivel: 10, classificado: false }),
    });
    renderizar(<FormularioLote />);
    await digitarSku(NOVO);
    expect(await screen.findByText('SKU novo: informe descrição e NCM.')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Descrição'), { target: { value: ' BISCOITO ' } });
    // As written on the invoice (issue 39): nothing cut, the dots dropped on the way out.
    fireEvent.change(screen.getByLabelText('NCM'), { target: { value: '1905.31.00' } });
    expect((screen.getByLabelText('NCM') as HTMLInputElement).value).toBe('1905.31.00');
    expect((screen.getByLabelText('Descrição') as HTMLInputElement).maxLength).toBe(255);
    preencher('10', 'L-1');
    fireEvent.click(screen.getByRole('button', { name: 'Dar entrada no estoque' }));
    expect((await screen.findByTestId('resultado-lote')).textContent).toBe(
      'Lote L-1 registrado. Saldo do SKU: 10. Tags pendentes: o produto será reclassificado depois.',
    );
    expect(corpoDoPost(f)).toEqual({
      sku: NOVO,
      codigoLote: 'L-1',
      quantidade: 10,
      descricao: 'BISCOITO',
      ncm: '19053100',
    });
  });

  it('checks the form itself, in pt-BR beside each field, never with the browser bubbles (issue 39)', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const f = fetchFalso({ [`GET /api/produtos/${NOVO}?opcional=true`]: { status: 204 } });
    renderizar(<FormularioLote />);
    const form = screen.getByRole('button', { name: 'Dar entrada no estoque' }).closest('form')!;
    expect(form.noValidate).toBe(true);
    expect(form.querySelectorAll('[required], [pattern]')).toHaveLength(0);
    fireEvent.click(screen.getByRole('button', { name: 'Dar entrada no estoque' }));
    expect(screen.getByText('Informe o SKU/EAN do produto.')).toBeTruthy();
    expect(screen.getByText('Informe a quantidade: um número inteiro a partir de 1.')).toBeTruthy();
    expect(screen.getByText('Informe o código do lote, como na embalagem.')).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByLabelText('SKU/EAN'));
    await digitarSku(NOVO);
    await screen.findByText('SKU novo: informe descrição e NCM.');
    fireEvent.change(screen.getByLabelText('NCM'), { target: { value: '1905.31' } });
    preencher('0', 'L-1');
    fireEvent.click(screen.getByRole('button', { name: 'Dar entrada no estoque' }));
    expect(screen.getByText('Informe a descrição do produto.')).toBeTruthy();
    expect(
      screen.getByText('NCM tem 8 dígitos, como na nota fiscal (ex.: 1905.31.00).'),
    ).toBeTruthy();
    expect(screen.getByLabelText('NCM').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText('Informe a quantidade: um número inteiro a partir de 1.')).toBeTruthy();
    expect(f.mock.calls.some(([, i]) => (i as RequestInit | undefined)?.method === 'POST')).toBe(
      false,
    );
  });

  it('the lookup fails: says so and offers the new-SKU fields', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    fetchFalso({ [`GET /api/produtos/${NOVO}?opcional=true`]: { status: 503 } });
    renderizar(<FormularioLote />);
    await digitarSku(NOVO);
    expect(await screen.findByText('Não foi possível consultar o SKU.')).toBeTruthy();
    expect(screen.getByLabelText('Descrição')).toBeTruthy();
    expect(screen.getByLabelText('NCM')).toBeTruthy();
  });

  it('an error shows the problem detail, or a fallback', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    document.cookie = 'XSRF-ESTOQUE=tok; path=/';
    let vez = 0;
    fetchFalso({
      ...consultaPao({ descricao: 'PAO', saldoDisponivel: 60 }),
      'POST /api/lotes': () =>
        vez++ === 0
          ? {
              status: 409,
              corpo: {
                status: 409,
                detail:
                  'lote já registrado para este SKU, ou o SKU foi cadastrado em paralelo; tente novamente',
              },
            }
          : { status: 500 },
    });
    renderizar(<FormularioLote />);
    await digitarSku(PAO);
    await screen.findByText('PAO · saldo 60');
    preencher('1', 'L-PAO-01');
    fireEvent.click(screen.getByRole('button', { name: 'Dar entrada no estoque' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'lote já registrado para este SKU, ou o SKU foi cadastrado em paralelo; tente novamente',
    );
    fireEvent.click(screen.getByRole('button', { name: 'Dar entrada no estoque' }));
    await screen.findByText('Não foi possível registrar o lote. Tente de novo.');
  });
});
