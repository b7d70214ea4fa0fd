// The Girô mark: a circular arrow turning around a green item (SPEC §8.3). Same drawing as
// public/giro-mark.svg; colours come from the tokens.
export function GiroMark({ size = 32, title }: { size?: number; title?: string }) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 32 32"
      role={title ? 'img' : undefined}
      aria-hidden={title ? undefined : true}
      aria-label={title}
      className="giro-mark"
    >
      <path
        d="M26.4 10.5A12 12 0 1 0 28 16"
        fill="none"
        stroke="var(--color-brand)"
        strokeWidth="3.2"
        strokeLinecap="round"
      />
      <path d="M22.6 9.2 L28.6 8.4 L27.4 14.3 Z" fill="var(--color-brand)" strokeLinejoin="round" />
      <circle cx="16" cy="16" r="5.2" fill="var(--color-accent)" />
    </svg>
  );
}
