import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Built into dist/, which estoque serves on its web listener (SPEC §9.5); in `npm run dev:painel`
// the dev server forwards /api to the estoque API the same way (prefix removed).
// The storefront the sidebar links to is read at run time from the listener's /config.json
// (web.url-vitrine), not baked into the build.
export default defineConfig({
  plugins: [react()],
  server: {
    port: 5174,
    fs: { allow: ['..'] },
    proxy: {
      '/api': {
        target: process.env.GIRO_ESTOQUE_URL ?? 'http://localhost:18081',
        rewrite: (p) => p.replace(/^\/api/, '') || '/',
      },
    },
  },
  build: { outDir: 'dist', emptyOutDir: true },
});
