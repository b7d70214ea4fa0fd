import { useEffect, useState } from 'react';

/** What the dashboard's listener says at run time (`GET /config.json`), not baked into the build. */
export interface AjustesPainel {
  /** `web.url-vitrine`: the storefront's public URL, when the operator set one. */
  urlVitrine?: string | null;
  /** `web.porta-vitrine`: where mercado serves the storefront, on this same host otherwise. */
  portaVitrine?: number;
}

/** The storefront's URL: the configured one, else this page's host on the storefront's port. */
export function urlVitrineDe(
  a: AjustesPainel,
  local: Pick<Location, 'protocol' | 'hostname'>,
): string {
  if (a.urlVitrine) return a.urlVitrine;
  return `${local.protocol}//${local.hostname}:${a.portaVitrine ?? 15173}`;
}

/** The storefront the sidebar links to, read once from `/config.json` (the default until then). */
export function useUrlVitrine(): string {
  const [url, setUrl] = useState(() => urlVitrineDe({}, window.location));
  useEffect(() => {
    let vivo = true;
    fetch('/config.json')
      .then((r) => (r.ok ? (r.json() as Promise<AjustesPainel>) : null))
      .then((a) => {
        if (a && vivo) setUrl(urlVitrineDe(a, window.location));
      })
      .catch(() => {
        // Served by `vite dev` or an old listener: the default stays.
      });
    return () => {
      vivo = false;
    };
  }, []);
  return url;
}
