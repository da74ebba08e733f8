import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', '.local/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/test/**', '**/bench/**'], message: 'Nothing imports test/ or bench/.' }] }],
    },
  },
  {
    // House rule 3: only lib/store talks to AWS.
    files: ['functions/**', 'lib/http/**', 'lib/domain/**', 'lib/contracts/**', 'lib/config/**', 'lib/routes.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['@aws-sdk/*'], message: 'Only lib/store imports @aws-sdk/*.' }] }],
    },
  },
  {
    files: ['test/**'],
    rules: { 'no-restricted-syntax': ['error', { selector: "MemberExpression[property.name=/^(only|skip)$/][object.name=/^(it|describe|test)$/]", message: 'No .only/.skip.' }] },
  },
);
