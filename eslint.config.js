import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Layering: one rule per dependency direction (README.md, Layout).
//
// Each direction is its own rule name, an alias of typescript-eslint's no-restricted-imports
// (which also sees `import type` and `export … from`). With a single rule name, flat config lets
// the last block matching a file replace the options of every earlier one, so a file in two zones
// (lib/domain is both pure and runtime code) would silently lose a set of restrictions. Separate
// names keep them additive; the core no-restricted-imports stays unused here so that no later
// block can clobber them. test/unit/lint-layering.test.ts proves each one fires.
//
// Patterns are gitignore globs matched against the specifier as written (nothing is resolved),
// so '**/store/**' catches '../store/keys.ts', '../../lib/platform/dynamo/keys.ts' and 'lib/platform/dynamo/keys.ts'.
const restrictImports = tseslint.plugin.rules['no-restricted-imports'];
const layering = {
  rules: {
    'domain-is-pure': restrictImports,
    'aws-sdk-only-in-store': restrictImports,
    'no-test-or-bench-imports': restrictImports,
    'workers-are-not-http': restrictImports,
    'domain-never-imports-contracts': restrictImports,
    'contracts-never-import-http': restrictImports,
  },
};

const AWS_SDK = ['@aws-sdk/*', 'aws-sdk', 'aws-sdk/*'];
const TEST = ['**/test/**'];
const BENCH = ['**/bench/**'];

/** A rule entry that forbids every specifier matching `group`. */
function forbid(group, message) {
  return ['error', { patterns: [{ group, message }] }];
}

const testOrBenchMessage = 'Nothing imports test/ or bench/: move shared code into lib/ (or into test/support for tests).';

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', '.local/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly' } },
    plugins: { layering },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Domain logic stays testable without AWS, Middy or a deployed stack: it reaches storage and
    // transport only through its own ports, which lib/store and lib/http implement.
    files: ['lib/domain/**'],
    rules: {
      'layering/domain-is-pure': forbid(
        ['**/store/**', '**/http/**', '**/functions/**', '**/composition*', '**/infra/**', '**/local/**', ...AWS_SDK, '@middy/*'],
        'lib/domain is pure: no lib/store, lib/http, functions/, lib/composition*, infra/, local/, @aws-sdk/* or @middy/*. Depend on a port in lib/domain instead.',
      ),
    },
  },
  {
    // The domain is the bottom layer: it owns the facts (event types, tracking modes, label formats
    // and limits) and the contracts derive their zod schemas from them, never the other way round.
    files: ['lib/domain/**'],
    rules: {
      'layering/domain-never-imports-contracts': forbid(
        ['**/contracts/**'],
        'lib/domain never imports lib/contracts: move the fact into lib/domain and let the contract derive its schema from it.',
      ),
    },
  },
  {
    // Contracts describe the wire shapes on top of the domain; the transport (lib/http,
    // functions/http) implements them, so a type both need lives in lib/contracts or lib/domain.
    files: ['lib/contracts/**'],
    rules: {
      'layering/contracts-never-import-http': forbid(
        ['**/http/**'],
        'lib/contracts never imports lib/http or functions/http: define the shape in lib/contracts (or lib/domain) and let lib/http implement it.',
      ),
    },
  },
  {
    // Runtime code (what ships in a Lambda bundle) talks to AWS only through lib/store, so the
    // adapters stay in one place. Tooling (local/, test/, bench/, scripts/, infra/) is deliberately
    // out of scope: it provisions and inspects the embedded stack and never ships in a bundle.
    files: ['functions/**', 'lib/**'],
    ignores: ['lib/store/**'],
    rules: { 'layering/aws-sdk-only-in-store': forbid(AWS_SDK, 'Only lib/store imports @aws-sdk/*: add or extend a store adapter.') },
  },
  {
    ignores: ['test/**', 'bench/**'],
    rules: { 'layering/no-test-or-bench-imports': forbid([...TEST, ...BENCH], testOrBenchMessage) },
  },
  {
    // Tests share helpers through test/support; relative imports inside test/ carry no `test/`
    // segment, so only a reach into bench/ is left to forbid (and the reverse for bench/).
    files: ['test/**'],
    rules: { 'layering/no-test-or-bench-imports': forbid(BENCH, testOrBenchMessage) },
  },
  {
    files: ['bench/**'],
    rules: { 'layering/no-test-or-bench-imports': forbid(TEST, testOrBenchMessage) },
  },
  {
    // Workers run from SQS and the schedule, not API Gateway: pulling in the Middy chain would
    // bundle it into every worker. `**/http/**` covers lib/http and functions/http.
    files: ['functions/workers/**'],
    rules: {
      'layering/workers-are-not-http': forbid(['**/http/**'], 'Workers do not import lib/http or functions/http: shared code (e.g. lib/platform/observability/log.ts) lives outside them.'),
    },
  },
  {
    files: ['test/**'],
    rules: { 'no-restricted-syntax': ['error', { selector: "MemberExpression[property.name=/^(only|skip)$/][object.name=/^(it|describe|test)$/]", message: 'No .only/.skip.' }] },
  },
);
