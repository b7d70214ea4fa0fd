import { useEffect, useState } from 'react';

/** The current time, refreshed every `ms` while `ativo`. */
export function useAgora(ativo = true, ms = 250): number {
  const [agora, setAgora] = useState(() => Date.now());
  useEffect(() => {
    if (!ativo) return;
    const tick = () => setAgora(Date.now());
    // Fresh at once when it becomes active (from a callback: no render cascade inside the effect).
    const primeiro = setTimeout(tick, 0);
    const t = setInterval(tick, ms);
    return () => {
      clearTimeout(primeiro);
      clearInterval(t);
    };
  }, [ativo, ms]);
  return agora;
}
