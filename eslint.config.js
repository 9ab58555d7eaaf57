// ESLint for `npm run lint`: typescript-eslint's type-checked recommended rules over the TypeScript
// (src/, test/, bench/), ESLint's recommended rules over the plain JavaScript tools (bin/tsadm,
// scripts/*.mjs, bench/*.mjs), which tsconfig.json does not type-check.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

// The Node globals the .mjs tools use; `globals` is not a dependency for this short list.
const nodeGlobals = Object.fromEntries(
  [
    'process', 'console', 'Buffer', 'URL', 'URLSearchParams', 'setTimeout', 'clearTimeout', 'setInterval',
    'clearInterval', 'setImmediate', 'performance', 'AbortController', 'AbortSignal', 'TextEncoder', 'TextDecoder',
    'structuredClone', 'fetch',
  ].map((name) => [name, 'readonly']),
);

export default defineConfig(
  { ignores: ['node_modules/', 'dist/', 'coverage/', 'bench/results/'] },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // `let { a, b } = …` where only b is reassigned later stays one declaration.
      'prefer-const': ['error', { destructuring: 'all' }],
      // `_`-prefixed parameters and destructured leftovers are deliberate (signatures a seam fixes).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['bin/tsadm', '**/*.mjs', '*.js'],
    extends: [js.configs.recommended],
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: nodeGlobals },
  },
);
