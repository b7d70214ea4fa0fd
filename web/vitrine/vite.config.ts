import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

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
  build: { outDir: 'dist', emptyOutDir: true },
});
