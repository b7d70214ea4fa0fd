import { ErroApi } from '../api';

/** A query that failed: the estoque answered 5xx, or did not answer at all. */
export function ErroCarregamento({ erro, aoTentar }: { erro: unknown; aoTentar: () => void }) {
  const semResposta = erro instanceof ErroApi && erro.status >= 500;
  return (
    <div className="aviso aviso-erro erro-carregamento" role="alert">
      <p>
        {semResposta
          ? 'Não foi possível carregar. O estoque não respondeu.'
          : 'Não foi possível carregar. Verifique a conexão com o estoque-service.'}
      </p>
      <button type="button" className="btn btn-contorno" onClick={aoTentar}>
        Tentar de novo
      </button>
    </div>
  );
}
