import { monograma, tomCategoria } from '../categorias';

export function Monograma({
  nome,
  categoria,
  grande = false,
}: {
  nome: string;
  categoria: string | null;
  grande?: boolean;
}) {
  return (
    <div
      className={`monograma${grande ? ' monograma-grande' : ''}`}
      style={{ ['--tom' as string]: tomCategoria(categoria) }}
      aria-hidden="true"
    >
      <span>{monograma(nome)}</span>
    </div>
  );
}
