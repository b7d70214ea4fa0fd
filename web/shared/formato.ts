// pt-BR formats shared by both fronts (SPEC §8.1, §8.2).

const dinheiro = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
const numero = new Intl.NumberFormat('pt-BR');
const inteiro = new Intl.NumberFormat('pt-BR', { maximumFractionDigits: 0 });

/** `R$ 8,99`, `R$ 1.234,56` (Intl puts a no-break space after `R$`, keeping it with the number). */
export function formatarDinheiro(valor: number): string {
  return dinheiro.format(valor);
}

/** Integer cents to BRL: totals are summed in cents so 0.1 + 0.2 never shows up. */
export function formatarCentavos(centavos: number): string {
  return dinheiro.format(centavos / 100);
}

/** `Math.round(preco * 100)` (SPEC §8.1). */
export function centavos(preco: number): number {
  return Math.round(preco * 100);
}

/** `1.248` */
/** "1 pedido", "3 pedidos", "1.248 pedidos": the number and the word in the right number. */
export function contagem(n: number, um: string, varios: string): string {
  return `${formatarNumero(n)} ${n === 1 ? um : varios}`;
}

export function formatarNumero(n: number): string {
  return numero.format(n);
}

/** `1.248`, rounded to a whole number: a count on a chart's axis (a tick may fall between two). */
export function formatarInteiro(n: number): string {
  return inteiro.format(n);
}

function plural(n: number, um: string, varios: string): string {
  return `${n} ${n === 1 ? um : varios}`;
}

/** "agora", "há 5 minutos", "há 3 horas", "há 2 dias" (a future instant — clock skew — is "agora"). */
export function tempoRelativo(instante: string | Date, agora: Date = new Date()): string {
  const ms = agora.getTime() - new Date(instante).getTime();
  const min = Math.floor(ms / 60_000);
  if (min < 1) return 'agora';
  if (min < 60) return `há ${plural(min, 'minuto', 'minutos')}`;
  const horas = Math.floor(min / 60);
  if (horas < 24) return `há ${plural(horas, 'hora', 'horas')}`;
  return `há ${plural(Math.floor(horas / 24), 'dia', 'dias')}`;
}

const dois = (n: number) => String(n).padStart(2, '0');

/** `HH:mm` for an instant of today (local time), else `dd/MM HH:mm`. */
export function quandoCurto(instante: string | Date, agora: Date = new Date()): string {
  const d = new Date(instante);
  const hora = `${dois(d.getHours())}:${dois(d.getMinutes())}`;
  const hoje =
    d.getFullYear() === agora.getFullYear() &&
    d.getMonth() === agora.getMonth() &&
    d.getDate() === agora.getDate();
  return hoje ? hora : `${dois(d.getDate())}/${dois(d.getMonth() + 1)} ${hora}`;
}

/** `HH:mm` (local time): the hours and minutes under a chart's axis. */
export function hhmm(instante: string | Date): string {
  return new Date(instante).toLocaleTimeString('pt-BR', { hour: '2-digit', minute: '2-digit' });
}

/** Milliseconds left as `mm:ss` (minutes may pass 59; never negative). */
export function mmss(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${dois(Math.floor(s / 60))}:${dois(s % 60)}`;
}

/** `04/12/2026 às 14:38` (local time): when an order was placed, on the pages people keep. */
export function dataHora(instante: string | Date): string {
  const d = new Date(instante);
  return `${dois(d.getDate())}/${dois(d.getMonth() + 1)}/${d.getFullYear()} às ${dois(d.getHours())}:${dois(d.getMinutes())}`;
}
