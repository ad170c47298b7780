// ESLint (docs/testing.md, "Linter and formatter"): rules that find real mistakes, none about
// layout (Prettier owns it) or taste. Type-aware: each .ts/.tsx file is checked against the
// tsconfig.json nearest to it (the root's, apps/dashboard's or clients/typescript's).
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: [
      '**/node_modules/',
      '**/dist/',
      '.data/',
      '.cache/',
      '.tap/',
      // Generated from docs/openapi.json, never edited by hand (the Python one is not JavaScript
      // but lives under clients/python/src, which holds nothing else to lint).
      'clients/typescript/src/schema.ts',
      'clients/python/',
    ],
  },
  {
    // A disable comment that no longer silences anything is dead code: it fails the run.
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  {
    files: ['**/*.{ts,tsx,js,mjs,cjs}'],
    extends: [js.configs.recommended, tseslint.configs.eslintRecommended],
    plugins: { '@typescript-eslint': tseslint.plugin },
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      // ESLint's recommended set is its "possible problems" rules (unreachable code, duplicate
      // keys and cases, self-assignment, a value assigned and never read, an error rethrown
      // without its cause, ...); tseslint's eslintRecommended turns off those tsc already checks.
      // Off from it: what tsc checks better, and what is taste rather than a mistake.
      'no-unused-vars': 'off', // replaced by the TypeScript-aware rule below
      'no-fallthrough': 'off', // tsc's noFallthroughCasesInSwitch, which sees exhaustive inner switches
      'no-control-regex': 'off', // control characters are matched on purpose (header and log sanitising)
      'no-regex-spaces': 'off', // taste
      'prefer-const': 'off', // taste
      'no-var': 'off', // taste (and absent from the code)
      'prefer-rest-params': 'off', // taste
      'prefer-spread': 'off', // taste
      // A value, import or parameter never read is dead code or a forgotten use. `_name` marks
      // a parameter or element kept for its position (a callback's signature, a tuple).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          caughtErrors: 'none',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    // The few plain scripts run on Node (tsc checks no JavaScript, so no-undef stays on for them).
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: {
      globals: { console: 'readonly', process: 'readonly', URL: 'readonly' },
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' },
    },
  },
  {
    files: ['**/*.{ts,tsx}'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A promise nobody awaits loses its rejection (an unhandled rejection ends the process)
      // and its ordering; fire-and-forget is written `void promise`, with a comment saying why.
      // tap's subtests (`t.test(...)`) are exempt: tap queues them itself, runs them in order and
      // reports their failures, so awaiting them would change nothing.
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafePromises: [{ from: 'package', name: 'PromiseWithSubtest', package: '@tapjs/core' }] }],
      // A promise where a boolean or a void callback is expected: `if (promise)`, or an async
      // function handed to an event emitter or a DOM handler, whose rejection nobody sees.
      '@typescript-eslint/no-misused-promises': 'error',
      // A switch over a union names every member or has a default: a new event type, status
      // or kind then fails here instead of falling through silently at run time.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false }],
    },
  },
);
