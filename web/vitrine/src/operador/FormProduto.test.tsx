import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderizar } from '../teste-util';
import { ErroApi } from './api';
import { FormProduto, numeroPreco, useFormProduto, type CamposProduto } from './FormProduto';

const VAZIO: CamposProduto = { preco: '', estoqueMinimo: '', estoqueIdeal: '' };

function Formulario({
  salvar,
  esvaziar = false,
  pronto,
}: {
  salvar: (c: CamposProduto) => Promise<string>;
  esvaziar?: boolean;
  pronto?: boolean;
}) {
  const f = useFormProduto({
    inicial: VAZIO,
    salvar,
    mensagem: (r, c) => `Salvo ${r} a ${c.preco}.`,
    esvaziar,
  });
  return (
    <FormProduto
      f={f}
      nome="cadastro"
      titulo="Um produto"
      botao="Salvar"
      botaoEnviando="Salvando…"
      pronto={pronto}
      erroPadrao="Não foi possível salvar. Tente de novo."
      nota="O que salvar faz."
      aoEnviar={() => f.enviar(f.campos)}
    />
  );
}

const preencher = () => {
  fireEvent.change(screen.getByLabelText('Preço (R$)'), { target: { value: '12,50' } });
  fireEvent.change(screen.getByLabelText('Estoque mínimo'), { target: { value: '2' } });
  fireEvent.change(screen.getByLabelText('Estoque ideal'), { target: { value: '8' } });
};

describe('FormProduto (operação do mercado)', () => {
  it('reads a price with a decimal comma or point', () => {
    expect(numeroPreco('12,50')).toBe(12.5);
    expect(numeroPreco('12.50')).toBe(12.5);
    expect(numeroPreco('8')).toBe(8);
  });

  it('sends the fields as typed, says the outcome and empties the form when asked', async () => {
    const salvar = vi.fn(async (_c: CamposProduto) => 'ok');
    renderizar(<Formulario salvar={salvar} esvaziar />);
    expect(screen.getByRole('region', { name: 'Um produto' })).toBeTruthy();
    preencher();
    fireEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    expect((await screen.findByTestId('cadastro-ok')).textContent).toBe('Salvo ok a 12,50.');
    expect(salvar.mock.calls[0]![0]).toEqual({
      preco: '12,50',
      estoqueMinimo: '2',
      estoqueIdeal: '8',
    });
    expect((screen.getByLabelText('Preço (R$)') as HTMLInputElement).value).toBe('');
    // A change to any field clears the outcome.
    fireEvent.change(screen.getByLabelText('Estoque ideal'), { target: { value: '9' } });
    expect(screen.queryByTestId('cadastro-ok')).toBeNull();
  });

  it('shows the API’s words, or its own when there are none, and a change clears them', async () => {
    const salvar = vi
      .fn<(c: CamposProduto) => Promise<string>>()
      .mockRejectedValueOnce(new ErroApi(400, { detail: 'preco deve ser positivo' }))
      .mockRejectedValueOnce(new ErroApi(502, null));
    renderizar(<Formulario salvar={salvar} />);
    preencher();
    fireEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    const erro = await screen.findByRole('alert');
    expect(erro.textContent).toBe('preco deve ser positivo');
    expect(erro.getAttribute('data-testid')).toBe('cadastro-erro');
    // What was typed stays, to be corrected.
    expect((screen.getByLabelText('Estoque mínimo') as HTMLInputElement).value).toBe('2');
    fireEvent.change(screen.getByLabelText('Preço (R$)'), { target: { value: '13' } });
    expect(screen.queryByRole('alert')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Não foi possível salvar. Tente de novo.',
    );
  });

  it('keeps the button off while saving and while there is nothing to send', async () => {
    let terminar: (r: string) => void = () => {};
    const salvar = () => new Promise<string>((r) => (terminar = r));
    const { unmount } = renderizar(<Formulario salvar={salvar} />);
    fireEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    const botao = await screen.findByRole('button', { name: 'Salvando…' });
    expect((botao as HTMLButtonElement).disabled).toBe(true);
    terminar('ok');
    await waitFor(() =>
      expect((screen.getByRole('button', { name: 'Salvar' }) as HTMLButtonElement).disabled).toBe(
        false,
      ),
    );
    unmount();
    renderizar(<Formulario salvar={salvar} pronto={false} />);
    expect((screen.getByRole('button', { name: 'Salvar' }) as HTMLButtonElement).disabled).toBe(
      true,
    );
  });
});
