export function Carregando({ texto = 'Carregando…' }: { texto?: string }) {
  return (
    <p className="carregando muted" role="status">
      {texto}
    </p>
  );
}

export function ErroCarregar({ aoTentar }: { aoTentar: () => void }) {
  return (
    <div className="aviso aviso-erro erro-carregar" role="alert">
      <p>Não foi possível carregar a vitrine agora.</p>
      <button type="button" className="btn btn-contorno" onClick={aoTentar}>
        Tentar de novo
      </button>
    </div>
  );
}
