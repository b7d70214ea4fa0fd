/** GTIN-8 or GTIN-12/13/14, digits only, no check digit validation (SPEC §3.1). */
export const SKU = /^(\d{8}|\d{12,14})$/;
export const NCM = /^\d{8}$/;

export function skuValido(sku: string): boolean {
  return SKU.test(sku);
}
