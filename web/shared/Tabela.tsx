// The operator pages' tables, in both fronts, written once: the scroll box around the table (a
// wide table scrolls inside it, the page never does at 375 px) and the header row of column
// titles, numeric ones right-aligned like their cells. The rows stay each page's own, and so does
// the table's class (`tabela-cartoes` turns rows into cards at 375 px; the event console has its
// own layout).
import type { ReactNode } from 'react';

/** A column's title; `{ num: 'Qtd' }` is a numeric column (`th.num`, right-aligned). */
export type Coluna = string | { num: string };

export function Tabela({
  colunas,
  className,
  rotulo,
  children,
}: {
  colunas: readonly Coluna[];
  className?: string;
  /** The table's accessible name, where the page has no caption for it. */
  rotulo?: string;
  /** The body's rows. */
  children: ReactNode;
}) {
  return (
    <div className="tabela-rolagem">
      <table className={className} aria-label={rotulo}>
        <thead>
          <tr>
            {colunas.map((c) =>
              typeof c === 'string' ? (
                <th key={c} scope="col">
                  {c}
                </th>
              ) : (
                <th key={c.num} scope="col" className="num">
                  {c.num}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
