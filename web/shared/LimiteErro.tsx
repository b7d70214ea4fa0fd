// An error boundary for an app: a render error shows a message and a way back instead of a
// blank page (every app starts inside one: shared/montar.tsx).
import { Component, type ReactNode } from 'react';

interface Estado {
  erro: Error | null;
}

export class LimiteErro extends Component<{ children: ReactNode }, Estado> {
  state: Estado = { erro: null };

  static getDerivedStateFromError(erro: Error): Estado {
    return { erro };
  }

  componentDidCatch(erro: Error): void {
    console.error(erro);
  }

  render() {
    if (!this.state.erro) return this.props.children;
    return (
      <main className="login">
        <div className="aviso aviso-erro" role="alert">
          <p>Algo deu errado nesta página.</p>
          <button
            type="button"
            className="btn btn-contorno"
            onClick={() => window.location.reload()}
          >
            Recarregar
          </button>
        </div>
      </main>
    );
  }
}
