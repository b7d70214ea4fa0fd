import tokens from './tokens.json';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM script without types
import { tokensCss } from './gerar-tokens.mjs';

const css: string = tokensCss(tokens);
const [claro, escuro] = css.split('@media (prefers-color-scheme: dark)');

describe('tokens.css from tokens.json (SPEC §8.3)', () => {
  it('has every colour, light in :root and dark under prefers-color-scheme', () => {
    expect(Object.keys(tokens.color)).toHaveLength(22);
    expect(claro).toContain('--color-surface: #fff8f1;');
    expect(claro).toContain('--color-brand: #d1490f;');
    expect(claro).toContain('--color-brand-2: #0e7d87;');
    expect(escuro).toContain('--color-surface: #16120e;');
    expect(escuro).toContain('--color-brand: #f9731a;');
    expect(escuro).toContain('--color-ink-on-highlight: #2a1e05;');
    for (const nome of Object.keys(tokens.color)) {
      expect(claro).toContain(`--color-${nome}:`);
      expect(escuro).toContain(`--color-${nome}:`);
    }
  });
  it('has the fonts with system fallbacks, generic families unquoted', () => {
    expect(css).toContain('--font-sans: Inter, ui-sans-serif, system-ui,');
    expect(css).toContain('--font-display: "Bricolage Grotesque",');
    expect(css).toMatch(/--font-mono: "JetBrains Mono", .*monospace;/);
    expect(css).not.toContain('"sans-serif"');
  });
  it('has the type scale, spacing, radius and shadows', () => {
    expect(css).toContain('--type-display-lg-size: 44px;');
    expect(css).toContain('--type-display-lg-line: 46px;');
    expect(css).toContain('--type-display-lg-weight: 700;');
    expect(css).toContain('--type-code-family: var(--font-mono);');
    expect(css).toContain('--type-overline-size: 11px;');
    for (const [n, px] of [
      [1, 4],
      [2, 8],
      [3, 12],
      [4, 16],
      [6, 24],
      [8, 32],
      [12, 48],
    ])
      expect(css).toContain(`--space-${n}: ${px}px;`);
    expect(css).toContain('--radius-pill: 999px;');
    expect(claro).toContain('--shadow-sm:');
    expect(escuro).toContain('--shadow-md:');
  });
});
