import { ConsoleEventos } from '../../../shared/ConsoleEventos';
import { apiEventos } from '../../../shared/eventos';
import { CascaOperador } from '../../../shared/Operador';
import { pedir, servico, type Sessao } from '../api';
import { useUrlVitrine } from '../config';
import { hrefEstoque, useRota } from '../rota';
import { PaginaEstoque, PaginaSku } from './Estoque';
import { FormularioLote } from './FormularioLote';
import { Graficos } from './Graficos';
import { Kpis } from './Kpis';
import { TabelaDemanda, TabelaReposicoes } from './Tabelas';

const EVENTOS = apiEventos(pedir);

export function Painel({ sessao }: { sessao: Sessao }) {
  const rota = useRota();
  const urlVitrine = useUrlVitrine();
  return (
    <CascaOperador
      servico={servico}
      sessao={sessao}
      titulo="Painel do estoque"
      rotuloNavegacao="Navegação do painel"
      urlVitrine={urlVitrine}
      navegacao={
        <>
          <a href={hrefEstoque()} aria-current={rota.pagina !== 'painel' ? 'page' : undefined}>
            Estoque
          </a>
          <a href="#entrada-lote">Entrada de lote</a>
          <a href="#demanda-reprimida">Demanda reprimida</a>
          <a href="#reposicoes">Reposições</a>
          <a href="#graficos">Gráficos</a>
          <a href="#eventos">Eventos</a>
        </>
      }
    >
      <Kpis />
      {rota.pagina === 'estoque' ? (
        <PaginaEstoque key={JSON.stringify(rota.filtro)} filtro={rota.filtro} />
      ) : rota.pagina === 'sku' ? (
        <PaginaSku key={rota.sku} sku={rota.sku} />
      ) : (
        <>
          <FormularioLote />
          <TabelaDemanda />
          <TabelaReposicoes />
          <Graficos eventos={EVENTOS} />
          <ConsoleEventos api={EVENTOS} chave="painel" servico="estoque" />
        </>
      )}
    </CascaOperador>
  );
}
