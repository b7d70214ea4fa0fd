// A list filter's select, as the operator pages of both fronts show it: its label, "all" (the
// empty value) first, then each option by its label in pt-BR.

export function CampoFiltro<T extends string>({
  id,
  rotulo,
  todos,
  valor,
  opcoes,
  rotuloDe,
  aoMudar,
}: {
  id: string;
  rotulo: string;
  /** The label of the empty value: "Todos", "Todas". */
  todos: string;
  valor: string;
  opcoes: readonly T[];
  rotuloDe: (opcao: T) => string;
  /** The value chosen ('' for all). */
  aoMudar: (valor: string) => void;
}) {
  return (
    <div className="campo">
      <label htmlFor={id}>{rotulo}</label>
      <select id={id} value={valor} onChange={(e) => aoMudar(e.target.value)}>
        <option value="">{todos}</option>
        {opcoes.map((o) => (
          <option key={o} value={o}>
            {rotuloDe(o)}
          </option>
        ))}
      </select>
    </div>
  );
}
