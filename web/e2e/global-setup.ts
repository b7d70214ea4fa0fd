// Playwright's global setup: the real market up before the first test, down after the last.
import { Lancador } from './support/lancador';

export default async function globalSetup() {
  const lancador = new Lancador();
  const inicio = Date.now();
  try {
    const estado = await lancador.subir();
    process.env.GIRO_E2E = JSON.stringify(estado); // read by the tests (workers inherit it)
    console.log(
      `e2e: mercado pronto em ${((Date.now() - inicio) / 1000).toFixed(1)} s — vitrine ${estado.mercados.principal.vitrine}, painel ${estado.mercados.principal.painel}`,
    );
  } catch (e) {
    await lancador.descer();
    throw e;
  }
  return async () => {
    await lancador.descer();
    const saidas = lancador.saidas();
    const ruins = Object.entries(saidas).filter(([nome, c]) => nome !== 'tag-worker' && c !== 0);
    if (ruins.length)
      console.warn(
        `e2e: serviços que não saíram com 0 depois do SIGTERM: ${JSON.stringify(Object.fromEntries(ruins))}`,
      );
  };
}
