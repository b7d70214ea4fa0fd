import { useEffect, useState } from 'react';

/** The current time, refreshed every `ms` while `ativo`. */
export function useAgora(ativo = true, ms = 250): number {
  const [agora, setAgora] = useState(() => Date.now());
  useEffect(() => {
    if (!ativo) return;
    setAgora(Date.now());
    const t = setInterval(() => setAgora(Date.now()), ms);
    return () => clearInterval(t);
  }, [ativo, ms]);
  return agora;
}
