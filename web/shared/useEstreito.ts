// Whether the window is phone-narrow (the width where tables become cards, 640 px): for a page
// whose order of sections changes there — in the DOM, so reading and tab order follow what is
// seen (issue 39: at 375 px the dashboard opens with what needs attention, not the lot form).
import { useSyncExternalStore } from 'react';

export const ESTREITO = '(max-width: 640px)';

function assinar(avisar: () => void): () => void {
  const m = typeof window.matchMedia === 'function' ? window.matchMedia(ESTREITO) : null;
  m?.addEventListener('change', avisar);
  return () => m?.removeEventListener('change', avisar);
}

const agora = () =>
  typeof window.matchMedia === 'function' ? window.matchMedia(ESTREITO).matches : false;

export function useEstreito(): boolean {
  return useSyncExternalStore(assinar, agora, () => false);
}
