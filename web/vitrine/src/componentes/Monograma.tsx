import { useState } from 'react';
import { monograma, tomCategoria } from '../categorias';

/** The product's picture: its image (issue 39) when it has one and it loads, else the two
 * initials over the category's tone; either way the same fixed box, the image whole in it. */
export function Monograma({
  nome,
  categoria,
  imagem,
  grande = false,
}: {
  nome: string;
  categoria: string | null;
  /** The API path of the image (`ProdutoResposta.imagem`), or null. */
  imagem?: string | null;
  grande?: boolean;
}) {
  // The URL that failed to load, so a new one is tried again.
  const [falhou, setFalhou] = useState<string | null>(null);
  const foto = imagem && falhou !== imagem ? imagem : null;
  return (
    <div
      className={`monograma${grande ? ' monograma-grande' : ''}${foto ? ' monograma-foto' : ''}`}
      style={{ ['--tom' as string]: tomCategoria(categoria) }}
      aria-hidden="true"
    >
      {foto ? (
        <img src={`/api${foto}`} alt="" loading="lazy" onError={() => setFalhou(foto)} />
      ) : (
        <span>{monograma(nome)}</span>
      )}
    </div>
  );
}
