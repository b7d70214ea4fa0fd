import { describe, expect, it } from 'vitest';
import { categoriasDoCatalogo, monograma, rotuloCategoria } from './categorias';

describe('categorias (SPEC §3.15)', () => {
  it('labels the known ones and capitalizes the rest', () => {
    expect(
      [
        'bebidas',
        'laticinios',
        'mercearia',
        'hortifruti',
        'padaria',
        'carnes',
        'congelados',
        'limpeza',
        'higiene',
        'pet',
        'outros',
      ].map(rotuloCategoria),
    ).toEqual([
      'Bebidas',
      'Laticínios',
      'Mercearia',
      'Hortifrúti',
      'Padaria',
      'Carnes',
      'Congelados',
      'Limpeza',
      'Higiene',
      'Pet',
      'Outros',
    ]);
    expect(rotuloCategoria('utilidades')).toBe('Utilidades');
  });
  it('takes the distinct non-null categories of the catalogue, sorted', () => {
    expect(
      categoriasDoCatalogo([
        { categoria: 'limpeza' },
        { categoria: null },
        { categoria: 'bebidas' },
        { categoria: 'limpeza' },
      ]),
    ).toEqual(['bebidas', 'limpeza']);
  });
  it('makes two-letter monograms', () => {
    expect(monograma('Coca-Cola 2L PET')).toBe('CC');
    expect(monograma('Pão de Forma Integral')).toBe('PF');
    expect(monograma('Banana Prata (kg)')).toBe('BP');
    expect(monograma('Leite')).toBe('L');
    expect(monograma('123')).toBe('12');
  });
});
