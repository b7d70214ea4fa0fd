/** GTIN-8 or GTIN-12/13/14, digits only, no check digit validation (SPEC §3.1). */
export const SKU = /^(\d{8}|\d{12,14})$/;
export const NCM = /^\d{8}$/;

export function skuValido(sku: string): boolean {
  return SKU.test(sku);
}

/** An NCM as people write it — `1905.31.00` on an invoice, `1905 31 00`, `19053100` — as the
 * service takes it: the digits alone (issue 39). Anything else is left for the check to name. */
export function normalizarNcm(ncm: string): string {
  return ncm.trim().replace(/[.\s-]/g, '');
}

export function ncmValido(ncm: string): boolean {
  return NCM.test(normalizarNcm(ncm));
}
