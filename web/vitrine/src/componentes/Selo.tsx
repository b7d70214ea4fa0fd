import type { StatusVitrine } from '../api';

export function Selo({ status }: { status: StatusVitrine }) {
  return status === 'ESGOTADO' ? (
    <span className="selo selo-esgotado">Esgotado</span>
  ) : (
    <span className="selo selo-ok">Em estoque</span>
  );
}
