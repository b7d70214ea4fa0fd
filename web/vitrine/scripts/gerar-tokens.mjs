// Generates src/styles/tokens.css of this app from the design tokens (web/shared/tokens.json).
// Run before dev, build and test (npm scripts do); the output is not committed.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gerarTokens } from '../../shared/gerar-tokens.mjs';

const app = join(dirname(fileURLToPath(import.meta.url)), '..');
gerarTokens(join(app, 'src/styles/tokens.css'));
