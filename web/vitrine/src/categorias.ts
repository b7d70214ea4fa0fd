// Storefront labels of the tag-worker's categories (SPEC §3.15); an unknown one is capitalized.
const ROTULOS: Record<string, string> = {
  bebidas: 'Bebidas',
  laticinios: 'Laticínios',
  mercearia: 'Mercearia',
  hortifruti: 'Hortifrúti',
  padaria: 'Padaria',
  carnes: 'Carnes',
  congelados: 'Congelados',
  limpeza: 'Limpeza',
  higiene: 'Higiene',
  pet: 'Pet',
  outros: 'Outros',
};

/** The tag-worker's categories, in the order the operator picks from. */
export const CATEGORIAS = Object.keys(ROTULOS);

export function rotuloCategoria(categoria: string): string {
  return (
    ROTULOS[categoria] ??
    (categoria ? categoria.charAt(0).toUpperCase() + categoria.slice(1) : categoria)
  );
}

/** Distinct non-null categories of the catalogue, sorted. */
export function categoriasDoCatalogo(produtos: { categoria: string | null }[]): string[] {
  const set = new Set<string>();
  for (const p of produtos) if (p.categoria) set.add(p.categoria);
  return [...set].sort((a, b) => a.localeCompare(b, 'pt-BR'));
}

/** A token colour per category, for the monogram's tone (no hard-coded colours). */
const TONS: Record<string, string> = {
  bebidas: 'var(--color-brand)',
  laticinios: 'var(--color-info)',
  mercearia: 'var(--color-highlight)',
  hortifruti: 'var(--color-accent)',
  padaria: 'var(--color-brand-strong)',
  carnes: 'var(--color-danger)',
  congelados: 'var(--color-brand-2-strong)',
  limpeza: 'var(--color-brand-2)',
  higiene: 'var(--color-info)',
  pet: 'var(--color-highlight)',
};

export function tomCategoria(categoria: string | null): string {
  return (categoria && TONS[categoria]) || 'var(--color-ink-muted)';
}

const MINUSCULAS = new Set(['de', 'da', 'do', 'das', 'dos', 'e', 'em', 'com', 'para']);

/** Two initials: "Coca-Cola 2L PET" → "CC", "Pão de Forma Integral" → "PF". */
export function monograma(nome: string): string {
  const palavras = nome.split(/[^\p{L}]+/u).filter((p) => p && !MINUSCULAS.has(p.toLowerCase()));
  const iniciais = palavras.slice(0, 2).map((p) => p[0]!.toUpperCase());
  return iniciais.join('') || nome.slice(0, 2).toUpperCase();
}
