// Precompresses a built front (issue 25): next to every text file of the build worth it, a
// `.gz` (gzip, level 9) and a `.br` (brotli, quality 11), made once here instead of per request.
// The services' web listener serves them as files with Content-Encoding when the client accepts
// the encoding (crates/giro-http/src/web.rs) and compresses on the fly only what has none.
//
//   node scripts/comprimir.mjs vitrine/dist painel/dist
//
// node:zlib only: no dependency. A variant is kept only when smaller than the file.

import { readdirSync, readFileSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { join, extname } from 'node:path';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';

/** What compresses well; fonts (woff2) and images are compressed already. */
const TEXTO = new Set([
  '.js',
  '.mjs',
  '.css',
  '.html',
  '.svg',
  '.json',
  '.txt',
  '.xml',
  '.webmanifest',
  '.map',
]);
/** Below this, the headers outweigh the saving. */
const MINIMO = 1024;

function arquivos(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? arquivos(p) : [p];
  });
}

const pastas = process.argv.slice(2);
if (pastas.length === 0) {
  console.error('usage: node scripts/comprimir.mjs DIST...');
  process.exit(2);
}
for (const pasta of pastas) {
  let n = 0;
  let antes = 0;
  let depois = 0;
  for (const arquivo of arquivos(pasta)) {
    if (arquivo.endsWith('.gz') || arquivo.endsWith('.br')) {
      rmSync(arquivo); // a variant of an earlier build
      continue;
    }
    if (!TEXTO.has(extname(arquivo)) || statSync(arquivo).size < MINIMO) continue;
    const dados = readFileSync(arquivo);
    const variantes = [
      ['.gz', gzipSync(dados, { level: 9 })],
      [
        '.br',
        brotliCompressSync(dados, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
            [constants.BROTLI_PARAM_SIZE_HINT]: dados.length,
          },
        }),
      ],
    ];
    for (const [sufixo, comprimido] of variantes) {
      if (comprimido.length < dados.length) writeFileSync(arquivo + sufixo, comprimido);
    }
    n += 1;
    antes += dados.length;
    depois += variantes[1][1].length;
  }
  console.log(`${pasta}: ${n} files precompressed (${antes} bytes; ${depois} as brotli)`);
}
