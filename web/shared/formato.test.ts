import { describe, expect, it } from 'vitest';
import {
  centavos,
  contagem,
  formatarCentavos,
  formatarDinheiro,
  formatarInteiro,
  formatarNumero,
  hhmm,
  mmss,
  quandoCurto,
  tempoRelativo,
} from './formato';

// Intl separates "R$" from the number with a no-break space (U+00A0).
const nb = (s: string) => s.replace(/\u00a0/g, ' ');

describe('dinheiro (SPEC §8.1)', () => {
  it('formats BRL the pt-BR way', () => {
    expect(nb(formatarDinheiro(8.99))).toBe('R$ 8,99');
    expect(nb(formatarDinheiro(1234.56))).toBe('R$ 1.234,56');
    expect(nb(formatarDinheiro(0))).toBe('R$ 0,00');
    expect(nb(formatarDinheiro(24.9))).toBe('R$ 24,90');
    expect(nb(formatarDinheiro(1_000_000))).toBe('R$ 1.000.000,00');
    expect(formatarDinheiro(8.99)).toBe('R$\u00a08,99');
  });
  it('sums in integer cents', () => {
    expect(centavos(8.99)).toBe(899);
    expect(centavos(0.1) + centavos(0.2)).toBe(30);
    expect(nb(formatarCentavos(3 * centavos(5.49) + centavos(8.99)))).toBe('R$ 25,46');
  });
});

describe('números', () => {
  it('groups thousands with a dot', () => {
    expect(formatarNumero(1248)).toBe('1.248');
    expect(formatarNumero(0)).toBe('0');
    expect(formatarNumero(999)).toBe('999');
    expect(formatarNumero(1_000_000)).toBe('1.000.000');
  });
  it('a chart’s count is a whole number', () => {
    expect(formatarInteiro(1248)).toBe('1.248');
    expect(formatarInteiro(2.5)).toBe('3');
    expect(formatarInteiro(0.4)).toBe('0');
  });
});

describe('tempo relativo (SPEC §8.2 "Desde")', () => {
  const agora = new Date('2026-03-10T15:00:00Z');
  const antes = (ms: number) => new Date(agora.getTime() - ms);
  it('says agora under a minute, and in the future (clock skew)', () => {
    expect(tempoRelativo(antes(0), agora)).toBe('agora');
    expect(tempoRelativo(antes(59_000), agora)).toBe('agora');
    expect(tempoRelativo(new Date(agora.getTime() + 30_000), agora)).toBe('agora');
  });
  it('counts minutes, hours and days with the right plural', () => {
    expect(tempoRelativo(antes(60_000), agora)).toBe('há 1 minuto');
    expect(tempoRelativo(antes(5 * 60_000), agora)).toBe('há 5 minutos');
    expect(tempoRelativo(antes(59 * 60_000 + 59_000), agora)).toBe('há 59 minutos');
    expect(tempoRelativo(antes(3600_000), agora)).toBe('há 1 hora');
    expect(tempoRelativo(antes(3 * 3600_000), agora)).toBe('há 3 horas');
    expect(tempoRelativo(antes(24 * 3600_000), agora)).toBe('há 1 dia');
    expect(tempoRelativo(antes(2 * 24 * 3600_000), agora)).toBe('há 2 dias');
  });
  it('takes ISO strings (the API sends instants)', () => {
    expect(tempoRelativo('2026-03-10T14:55:00Z', agora)).toBe('há 5 minutos');
  });
});

describe('quando (Reposições recentes)', () => {
  it('HH:mm today, dd/MM HH:mm before', () => {
    const agora = new Date(2026, 2, 10, 18, 30);
    expect(quandoCurto(new Date(2026, 2, 10, 9, 5), agora)).toBe('09:05');
    expect(quandoCurto(new Date(2026, 2, 9, 23, 59), agora)).toBe('09/03 23:59');
    expect(quandoCurto(new Date(2025, 11, 31, 7, 0), agora)).toBe('31/12 07:00');
  });
  it('hhmm is the local hours and minutes', () => {
    expect(hhmm(new Date(2026, 2, 10, 9, 5))).toBe('09:05');
    expect(hhmm(new Date(2026, 2, 9, 23, 59).toISOString())).toBe('23:59');
  });
});

describe('contagem mm:ss', () => {
  it('rounds up to the second and never goes negative', () => {
    expect(mmss(15 * 60_000)).toBe('15:00');
    expect(mmss(14 * 60_000 + 59_001)).toBe('15:00');
    expect(mmss(61_000)).toBe('01:01');
    expect(mmss(999)).toBe('00:01');
    expect(mmss(0)).toBe('00:00');
    expect(mmss(-5000)).toBe('00:00');
    expect(mmss(75 * 60_000)).toBe('75:00');
  });
});

describe('contagem', () => {
  it('puts the word in the number of the count', () => {
    expect(contagem(1, 'pedido', 'pedidos')).toBe('1 pedido');
    expect(contagem(0, 'pedido', 'pedidos')).toBe('0 pedidos');
    expect(contagem(1248, 'pedido', 'pedidos')).toBe('1.248 pedidos');
  });
});
