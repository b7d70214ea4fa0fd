import { cleanup } from '@testing-library/react';
import { afterEach, vi } from 'vitest';

// Charts: a recorder instead of uPlot (no canvas in jsdom); see shared/teste-uplot.ts.
vi.mock('uplot', () => import('./shared/teste-uplot'));

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
  localStorage.clear();
  document.cookie.split(';').forEach((c) => {
    const nome = c.split('=')[0]?.trim();
    if (nome) document.cookie = `${nome}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`;
  });
});
