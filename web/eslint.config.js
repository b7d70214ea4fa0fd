// ESLint (flat config) for both fronts, the shared code and the browser tests: JavaScript's and
// typescript-eslint's recommended rules, and React's hooks rules (rules-of-hooks, exhaustive-deps
// and the React Compiler checks) for components. Formatting is Prettier's job, not ESLint's.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/', 'node_modules/', 'test-results/', 'playwright-report/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['vitrine/**/*.{ts,tsx}', 'painel/**/*.{ts,tsx}', 'shared/**/*.{ts,tsx}'],
    languageOptions: { globals: globals.browser },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      // A missing dependency is a stale value waiting to happen: an error, not a warning.
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    files: ['**/*.{js,mjs}', 'e2e/**/*.ts', '*.config.ts', '*/vite.config.ts', 'vitest.setup.ts'],
    languageOptions: { globals: globals.node },
  },
  {
    // A leading underscore marks an argument or binding kept on purpose.
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
    },
  },
);
