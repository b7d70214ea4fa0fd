import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

// Built into dist/, which mercado serves on its web listener (SPEC §9.5); in `npm run dev:vitrine`
// the dev server forwards /api to the mercado API the same way (prefix removed).
export default defineConfig({
  plugins: [react()],
  server: {
    port: 5173,
    fs: { allow: ['..'] },
    proxy: {
      '/api': {
        target: process.env.GIRO_MERCADO_URL ?? 'http://localhost:18080',
        rewrite: (p) => p.replace(/^\/api/, '') || '/',
      },
    },
  },
  // Two apps in one build: the storefront and, under /operador/, mercado's operator pages
  // (their hashed assets share dist/assets/).
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    rollupOptions: {
      input: {
        vitrine: fileURLToPath(new URL('./index.html', import.meta.url)),
        operador: fileURLToPath(new URL('./operador/index.html', import.meta.url)),
      },
    },
  },
});
