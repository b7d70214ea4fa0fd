// A quantity stepper: − / number / +, limited to [1, maximo].
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
  const mudar = (n: number) => aoMudar(Math.min(Math.max(n, 1), maximo));
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
    </div>
  );
}
