import { Link } from 'react-router';

export function PaginaNaoEncontrada() {
  return (
    <section className="nao-encontrada">
      <p className="t-overline muted">Erro 404</p>
      <h1 className="t-display">Página não encontrada</h1>
      <p className="muted">O endereço pode ter mudado, ou o produto saiu da vitrine.</p>
      <Link to="/" className="btn btn-primario">
        Voltar para a vitrine
      </Link>
    </section>
  );
}
