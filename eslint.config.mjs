// `npm run lint` (run by `npm test`): ESLint's and typescript-eslint's recommended rules.
// Not the type-aware presets: they would type-check the whole project a second time on every run.
import eslint from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  globalIgnores(['**/node_modules/', 'cdk.out/', '.data/', '.bench/', 'coverage/', 'client/dist/', 'client/src/generated/']),
  eslint.configs.recommended,
  tseslint.configs.recommended,
  {
    // A disable comment must name a rule that would otherwise fire.
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `_name` marks a value left unused on purpose (a field rest-destructured away, a callback's slot).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // Wiring with a cycle: a closure may name a variable that is assigned just after it.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Where a pattern names control characters it means to (unsafe keys, terminal escapes).
      'no-control-regex': 'off',
    },
  },
  {
    // Tests read untyped JSON (templates, API answers) field by field; `unknown` would need a cast per access.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The CommonJS files: configuration and the bundle runner spawned by bin/invoke.
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
