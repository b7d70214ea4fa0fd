import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fetchFalso, renderizar } from '../teste-util';
import { alteracao, PaginaEditarProduto } from './PaginaEditarProduto';

const produto = {
  sku: '7894900011517',
  nome: 'Coca-Cola 2L PET',
  preco: 8.99,
  status: 'DISPONIVEL' as const,
  prateleira: 10,
  estoqueMinimo: 6,
  estoqueIdeal: 24,
  categoria: null,
  reposicaoAberta: null,
  listado: true,
  descricao: null,
  imagem: null,
};

const rota = { rota: `/produtos/${produto.sku}`, caminho: '/produtos/:sku' };

afterEach(() => vi.restoreAllMocks());

describe('PaginaEditarProduto (operação do mercado)', () => {
  it('sends only what changed', () => {
    const campos = {
      preco: '8,99',
      estoqueMinimo: '6',
      estoqueIdeal: '24',
      listado: true,
      nome: 'Coca-Cola 2L PET',
      categoria: '',
      descricao: '',
    };
    expect(alteracao(produto, campos)).toBeUndefined();
    expect(alteracao(produto, { ...campos, preco: '9,49', estoqueMinimo: '12' })).toEqual({
      preco: 9.49,
      estoqueMinimo: 12,
    });
    expect(alteracao(produto, { ...campos, listado: false })).toEqual({ listado: false });
    // Issue 39: name, category, description; surrounding spaces alone are no change.
    expect(alteracao(produto, { ...campos, nome: ' Coca-Cola 2L PET ', descricao: '  ' })).toBe(
      undefined,
    );
    expect(
      alteracao(produto, { ...campos, nome: 'Coca-Cola Zero 2L', categoria: 'bebidas' }),
    ).toEqual({ nome: 'Coca-Cola Zero 2L', categoria: 'bebidas' });
    expect(alteracao(produto, { ...campos, nome: '' })).toEqual({ nome: '' });
    const descrito = { ...produto, descricao: 'Garrafa PET.' };
    expect(alteracao(descrito, { ...campos, descricao: '' })).toEqual({ descricao: '' });
  });

  it('renames, categorises and describes the product in one PATCH and says it saved', async () => {
    document.cookie = 'XSRF-MERCADO=tok; path=/';
    const f = fetchFalso({
      'GET /api/operacao/produtos': { status: 200, corpo: [produto] },
      [`PATCH /api/operacao/produtos/${produto.sku}`]: {
        status: 200,
        corpo: {
          ...produto,
          nome: 'Coca-Cola Original 2L',
          categoria: 'bebidas',
          descricao: 'Gelada.',
        },
      },
    });
    renderizar(<PaginaEditarProduto />, rota);
    expect(((await screen.findByLabelText('Nome')) as HTMLInputElement).value).toBe(produto.nome);
    expect((screen.getByLabelText('Categoria') as HTMLSelectElement).value).toBe('');
    fireEvent.change(screen.getByLabelText('Nome'), { target: { value: 'Coca-Cola Original 2L' } });
    fireEvent.change(screen.getByLabelText('Categoria'), { target: { value: 'bebidas' } });
    fireEvent.change(screen.getByLabelText('Descrição'), { target: { value: 'Gelada.' } });
    fireEvent.click(screen.getByRole('button', { name: 'Salvar alterações' }));
    expect((await screen.findByTestId('edicao-ok')).textContent).toBe('Alterações salvas.');
    const patch = f.mock.calls.find(([, i]) => i?.method === 'PATCH');
    expect(JSON.parse(String(patch?.[1]?.body))).toEqual({
      nome: 'Coca-Cola Original 2L',
      categoria: 'bebidas',
      descricao: 'Gelada.',
    });
  });

  it('shows the name the warehouse knows the product by beside the storefront’s (issue 39 §6)', async () => {
    fetchFalso({
      'GET /api/operacao/produtos': { status: 200, corpo: [produto] },
      [`GET /api/operacao/estoque/produtos/${produto.sku}`]: {
        status: 200,
        corpo: {
          sku: produto.sku,
          descricao: 'REFRIG COCA COLA PET 2L',
          categoria: null,
          tags: null,
        },
      },
    });
    renderizar(<PaginaEditarProduto />, rota);
    const nome = await screen.findByLabelText('Nome');
    await waitFor(() =>
      expect(
        document.getElementById(nome.getAttribute('aria-describedby') ?? '')?.textContent,
      ).toBe('No estoque: REFRIG COCA COLA PET 2L'),
    );
  });

  it('uploads a chosen image as is, and refuses a wrong type or a too large one without sending', async () => {
    document.cookie = 'XSRF-MERCADO=tok; path=/';
    const url = `/produtos/${produto.sku}/imagem?v=abc`;
    const f = fetchFalso({
      'GET /api/operacao/produtos': { status: 200, corpo: [produto] },
      [`PUT /api/operacao/produtos/${produto.sku}/imagem`]: {
        status: 200,
        corpo: { ...produto, imagem: url },
      },
    });
    renderizar(<PaginaEditarProduto />, rota);
    const campo = await screen.findByLabelText('Enviar imagem');
    const escolher = (arquivo: File) => fireEvent.change(campo, { target: { files: [arquivo] } });

    escolher(new File(['GIF89a'], 'x.gif', { type: 'image/gif' }));
    expect((await screen.findByTestId('imagem-erro')).textContent).toBe(
      'Escolha uma imagem JPEG, PNG ou WebP.',
    );
    escolher(new File([new Uint8Array(1024 * 1024 + 1)], 'grande.png', { type: 'image/png' }));
    expect(screen.getByTestId('imagem-erro').textContent).toBe(
      'A imagem tem 1,0 MB; o máximo é 1 MB.',
    );
    expect(f.mock.calls.some(([, i]) => i?.method === 'PUT')).toBe(false);

    const png = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'coca.png', {
      type: 'image/png',
    });
    escolher(png);
    expect((await screen.findByTestId('imagem-ok')).textContent).toBe(
      'Imagem salva: a vitrine já mostra a nova imagem.',
    );
    const put = f.mock.calls.find(([, i]) => i?.method === 'PUT');
    expect(put?.[1]?.body).toBe(png);
    const h = new Headers(put?.[1]?.headers);
    expect([h.get('Content-Type'), h.get('X-XSRF-TOKEN')]).toEqual(['image/png', 'tok']);
  });

  it('shows the API’s words when it refuses an image', async () => {
    fetchFalso({
      'GET /api/operacao/produtos': { status: 200, corpo: [produto] },
      [`PUT /api/operacao/produtos/${produto.sku}/imagem`]: {
        status: 400,
        corpo: { detail: 'imagem: o conteúdo não é um arquivo image/png' },
      },
    });
    renderizar(<PaginaEditarProduto />, rota);
    fireEvent.change(await screen.findByLabelText('Enviar imagem'), {
      target: { files: [new File(['não é png'], 'x.png', { type: 'image/png' })] },
    });
    expect((await screen.findByRole('alert')).textContent).toBe(
      'imagem: o conteúdo não é um arquivo image/png',
    );
  });

  it('a minimum above the shelf says the restock it asked for', async () => {
    document.cookie = 'XSRF-MERCADO=tok; path=/';
    const f = fetchFalso({
      'GET /api/operacao/produtos': { status: 200, corpo: [produto] },
      [`PATCH /api/operacao/produtos/${produto.sku}`]: {
        status: 200,
        corpo: {
          ...produto,
          estoqueMinimo: 12,
          reposicaoAberta: {
            eventId: 'e',
            qtd: 14,
            status: 'PENDENTE',
            criadaEm: '2026-12-04T10:00:00Z',
          },
        },
      },
    });
    renderizar(<PaginaEditarProduto />, rota);
    fireEvent.change(await screen.findByLabelText('Estoque mínimo'), { target: { value: '12' } });
    fireEvent.click(screen.getByRole('button', { name: 'Salvar alterações' }));
    expect(
      await screen.findByText(
        'Alterações salvas. A prateleira ficou abaixo do novo mínimo: a reposição automática pediu 14 un. ao estoque.',
      ),
    ).toBeTruthy();
    await waitFor(() => {
      const patch = f.mock.calls.find(([, i]) => i?.method === 'PATCH');
      expect(JSON.parse(String(patch?.[1]?.body))).toEqual({ estoqueMinimo: 12 });
      expect(new Headers(patch?.[1]?.headers).get('X-XSRF-TOKEN')).toBe('tok');
    });
  });

  it('unlisting asks first, and the API’s words are shown on a 400', async () => {
    const confirmar = vi.spyOn(window, 'confirm').mockReturnValueOnce(false).mockReturnValue(true);
    const f = fetchFalso({
      'GET /api/operacao/produtos': { status: 200, corpo: [produto] },
      [`PATCH /api/operacao/produtos/${produto.sku}`]: {
        status: 400,
        corpo: { detail: 'exigido 1 <= estoqueMinimo <= estoqueIdeal; recebido min=6 ideal=5' },
      },
    });
    renderizar(<PaginaEditarProduto />, rota);
    fireEvent.click(await screen.findByLabelText('À venda na vitrine'));
    fireEvent.click(screen.getByRole('button', { name: 'Salvar alterações' }));
    expect(confirmar).toHaveBeenCalledTimes(1);
    expect(f.mock.calls.some(([, i]) => i?.method === 'PATCH')).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: 'Salvar alterações' }));
    expect(
      await screen.findByText('exigido 1 <= estoqueMinimo <= estoqueIdeal; recebido min=6 ideal=5'),
    ).toBeTruthy();
  });
});
