// Lint with typescript-eslint's recommended rules, type-aware on the code that ships (the
// packages', services' and apps' src); formatting is prettier's job. Why tests and benchmarks are
// linted without types: docs/decisions.md § Toolchain.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

const TESTS = ['**/test/**/*.ts', 'tests/**/*.ts', 'bench/src/**/*.ts'];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/*.js', '**/*.cjs', '**/*.mjs', '.data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: ['./tsconfig.lint.json'], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // The console is browser code with its own compiler settings (DOM, JSX, bundler resolution).
    files: ['apps/console/**/*.ts', 'apps/console/**/*.tsx'],
    languageOptions: {
      parserOptions: {
        project: ['./apps/console/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    // Tests and benchmarks: the rules without types (`npm run typecheck` checks their types).
    files: TESTS,
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Tests read the JSON bodies of the API under test, which are `any` by nature; `expect` is
    // their type check, so a ban on `any` for those bodies would only ask for casts that prove
    // nothing.
    files: TESTS,
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  prettier,
);
