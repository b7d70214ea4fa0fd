// Issue 39 §12: a quantity typed above what is available is lowered and the stepper says why.
import { fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { Quantidade } from './Quantidade';

function Caixa({ maximo }: { maximo: number }) {
  const [q, setQ] = useState(1);
  return <Quantidade id="q" rotulo="Quantidade" valor={q} maximo={maximo} aoMudar={setQ} />;
}

describe('Quantidade', () => {
  it('says why 30 became 24, and says nothing once within the limit', () => {
    render(<Caixa maximo={24} />);
    const campo = screen.getByRole('spinbutton', { name: 'Quantidade' }) as HTMLInputElement;
    fireEvent.change(campo, { target: { value: '30' } });
    expect(campo.value).toBe('24');
    expect(screen.getByRole('status').textContent).toBe(
      'Só há 24 unidades disponíveis: a quantidade ficou em 24, não 30.',
    );
    expect(campo.getAttribute('aria-describedby')).toBe('q-limite');
    fireEvent.change(campo, { target: { value: '5' } });
    expect(campo.value).toBe('5');
    expect(screen.getByRole('status').textContent).toBe('');
  });

  it('one unit left: in the singular', () => {
    render(<Caixa maximo={1} />);
    fireEvent.change(screen.getByRole('spinbutton'), { target: { value: '3' } });
    expect(screen.getByRole('status').textContent).toBe(
      'Só há 1 unidade disponível: a quantidade ficou em 1, não 3.',
    );
  });
});
