// Lint rules for the whole tree (`npm run lint`; `npm test` runs it). Formatting is Prettier's
// (.prettierrc.json), so no style rules here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/generated/**', 'scripts/runtime/**', '.data/**', 'packages/db/schema-engine/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        performance: 'readonly',
        structuredClone: 'readonly',
        AbortController: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
      },
    },
    rules: {
      // Money only through the money module (packages/domain/src/money.ts): no float arithmetic, one Decimal.
      'no-restricted-imports': ['error', { paths: [{ name: 'decimal.js', message: 'Use Decimal and the helpers of packages/domain/src/money.ts.' }] }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  { files: ['packages/domain/src/money.ts', 'packages/domain/src/money.test.ts'], rules: { 'no-restricted-imports': 'off' } },
);
