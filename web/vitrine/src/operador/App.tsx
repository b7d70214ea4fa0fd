import { NavLink, Route, Routes } from 'react-router';
import { ConsoleEventos } from '../../../shared/ConsoleEventos';
import { apiEventos } from '../../../shared/eventos';
import { AppOperador, CascaOperador } from '../../../shared/Operador';
import { pedir, servico } from './api';
import { GraficosOperador } from './GraficosOperador';
import { PaginaEditarProduto } from './PaginaEditarProduto';
import { PaginaPedidoOperador, PaginaPedidos } from './PaginaPedidos';
import { PaginaProdutos } from './PaginaProdutos';

const EVENTOS = apiEventos(pedir);

export function App() {
  return (
    <AppOperador servico={servico} tituloLogin="Entrar na operação do mercado">
      {(sessao) => (
        <CascaOperador
          servico={servico}
          sessao={sessao}
          titulo="Operação do mercado"
          rotuloNavegacao="Navegação da operação"
          urlVitrine="/"
          navegacao={
            <>
              <NavLink to="/" end>
                Produtos
              </NavLink>
              <NavLink to="/pedidos">Pedidos</NavLink>
              <NavLink to="/eventos">Eventos</NavLink>
            </>
          }
        >
          <Routes>
            <Route
              path="/"
              element={
                <>
                  <GraficosOperador />
                  <PaginaProdutos />
                </>
              }
            />
            <Route path="/produtos/:sku" element={<PaginaEditarProduto />} />
            <Route path="/pedidos" element={<PaginaPedidos />} />
            <Route path="/pedidos/:id" element={<PaginaPedidoOperador />} />
            <Route
              path="/eventos"
              element={<ConsoleEventos api={EVENTOS} chave="operador" servico="mercado" />}
            />
            <Route path="*" element={<p className="muted">Página não encontrada.</p>} />
          </Routes>
        </CascaOperador>
      )}
    </AppOperador>
  );
}
