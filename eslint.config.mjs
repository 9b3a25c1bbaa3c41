// JavaScript lint (npm eslint, flat config): `make lint`, part of `make test` and CI. Unused
// variables and imports are errors; an argument or a caught error may go unused when its name
// starts with "_" (a callback's required parameter, say). A name used but never defined is an
// error too (the page's and Node's globals are known).
import globals from 'globals';

export default [
  {
    ignores: ['web/dist/**', 'build/**', 'test-output/**', 'bench/out/**', 'node_modules/**'],
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: { ...globals.browser, ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'no-undef': 'error',
      'no-unused-vars': ['error', { args: 'after-used', argsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      'no-unused-private-class-members': 'error',
    },
  },
  {
    // The browser suite's tests and their helpers stay short enough to read at a glance.
    files: ['tests/browser/**/*.mjs'],
    rules: { 'max-lines-per-function': ['error', { max: 80 }] },
  },
  {
    files: ['**/*.cjs', 'web/page-language.js'],
    languageOptions: { sourceType: 'script' },
  },
];
