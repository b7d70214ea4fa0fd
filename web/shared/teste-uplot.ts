// uPlot in the component tests: jsdom has no canvas nor matchMedia, so vitest.setup.ts puts
// this recorder in its place for every test; the browser tests (e2e/) draw with the real one.
// A test reads what a chart was given from `graficosDesenhados`.
import type uPlot from 'uplot';

export interface Desenho {
  opcoes: uPlot.Options;
  dados: uPlot.AlignedData;
  destruido: boolean;
}

export const graficosDesenhados: Desenho[] = [];

class UPlotFalso {
  static paths = { bars: () => () => null };
  private desenho: Desenho;
  constructor(opcoes: uPlot.Options, dados: uPlot.AlignedData) {
    this.desenho = { opcoes, dados, destruido: false };
    graficosDesenhados.push(this.desenho);
  }
  setSize() {}
  destroy() {
    this.desenho.destruido = true;
  }
}

export default UPlotFalso;
