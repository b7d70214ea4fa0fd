import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

// Unit and component tests of both fronts and their shared code (jsdom); the browser tests
// against the real services are in e2e/ (Playwright).
export default defineConfig({
  plugins: [react()],
  test: {
    environment: 'jsdom',
    include: [
      'shared/**/*.test.{ts,tsx}',
      'vitrine/src/**/*.test.{ts,tsx}',
      'painel/src/**/*.test.{ts,tsx}',
    ],
    restoreMocks: true,
    setupFiles: ['./vitest.setup.ts'],
  },
});
