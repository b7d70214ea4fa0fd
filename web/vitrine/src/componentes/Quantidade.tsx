// A quantity stepper: − / number / +, limited to [1, maximo]. A number typed above the maximum
// becomes the maximum, and the stepper says why under it (issue 39: 30 silently became 24).
import { useState } from 'react';

const minuscula = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

export function Quantidade({
  id,
  valor,
  maximo,
  rotulo,
  aoMudar,
}: {
  id: string;
  valor: number;
  maximo: number;
  rotulo: string;
  aoMudar: (n: number) => void;
}) {
  const [limitado, setLimitado] = useState<number | null>(null);
  const mudar = (n: number) => {
    setLimitado(n > maximo ? n : null);
    aoMudar(Math.min(Math.max(n, 1), maximo));
  };
  const aviso = `${id}-limite`;
  return (
    <div className="quantidade">
      <label htmlFor={id} className="sr-only">
        {rotulo}
      </label>
      <button
        type="button"
        className="btn btn-contorno quantidade-passo"
        aria-label={`Diminuir ${minuscula(rotulo)}`}
        disabled={valor <= 1}
        onClick={() => mudar(valor - 1)}
      >
        −
      </button>
      <input
        id={id}
        type="number"
        inputMode="numeric"
        min={1}
        max={maximo}
        value={valor}
        aria-describedby={limitado != null ? aviso : undefined}
        onChange={(e) => {
          const n = Number.parseInt(e.target.value, 10);
          if (Number.isFinite(n)) mudar(n);
        }}
      />
      <button
        type="button"
        className="btn btn-contorno quantidade-passo"
        aria-label={`Aumentar ${minuscula(rotulo)}`}
        disabled={valor >= maximo}
        onClick={() => mudar(valor + 1)}
      >
        +
      </button>
      <p id={aviso} className="t-small quantidade-limite" role="status" aria-live="polite">
        {limitado != null &&
          (maximo === 1
            ? `Só há 1 unidade disponível: a quantidade ficou em 1, não ${limitado}.`
            : `Só há ${maximo} unidades disponíveis: a quantidade ficou em ${maximo}, não ${limitado}.`)}
      </p>
    </div>
  );
}
