import { describe, expect, it } from 'vitest';

import { urlVitrineDe } from './config';

describe('the storefront URL the dashboard links to', () => {
  const local = { protocol: 'https:', hostname: 'painel.exemplo' };
  it('is the configured one when the operator set web.url-vitrine', () => {
    expect(urlVitrineDe({ urlVitrine: 'https://loja.exemplo', portaVitrine: 15173 }, local)).toBe(
      'https://loja.exemplo',
    );
  });
  it('else is this host on web.porta-vitrine', () => {
    expect(urlVitrineDe({ urlVitrine: null, portaVitrine: 8443 }, local)).toBe(
      'https://painel.exemplo:8443',
    );
    expect(urlVitrineDe({}, local)).toBe('https://painel.exemplo:15173');
  });
});
