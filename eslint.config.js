import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { areaRules } from './eslint/area-doors.js';

// Layering: one rule per dependency direction (docs/architecture.md "Layers and their rules").
//
// Each direction is its own rule name, an alias of typescript-eslint's no-restricted-imports
// (which also sees `import type` and `export … from`). With a single rule name, flat config lets
// the last block matching a file replace the options of every earlier one, so a file in two zones
// (a folder both pure and runtime) would silently lose a set of restrictions. Separate
// names keep them additive; the core no-restricted-imports stays unused here so that no later
// block can clobber them. test/unit/lint-layering.test.ts proves each one fires.
//
// Patterns are gitignore globs matched against the specifier as written (nothing is resolved),
// so '**/store/**' catches '../store/keys.ts', '../../lib/platform/dynamo/keys.ts' and 'lib/platform/dynamo/keys.ts'.
const restrictImports = tseslint.plugin.rules['no-restricted-imports'];
const layering = {
  rules: {
    'domain-is-pure': restrictImports,
    'aws-sdk-only-in-adapters': restrictImports,
    'no-test-or-bench-imports': restrictImports,
    'workers-are-not-http': restrictImports,
    'domain-never-imports-contracts': restrictImports,
    'contracts-never-import-http': restrictImports,
    'http-never-imports-store': restrictImports,
    ...areaRules,
  },
};

const AWS_SDK = ['@aws-sdk/*', 'aws-sdk', 'aws-sdk/*'];
const TEST = ['**/test/**'];
const BENCH = ['**/bench/**'];
/** The adapters: areas' store/ and transport/, the platform's AWS clients and DynamoDB core. */
const ADAPTERS = ['**/store/**', '**/transport/**', '**/aws/**', '**/dynamo/**'];
/** Pure code: every area's domain, and the platform's folders of rules and ports. */
const PURE = ['lib/*/domain/**', 'lib/platform/{core,write,events,audit,pagination,rate-limit,auth,csv,contracts}/**'];

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
    // transport only through its own ports, which the adapters implement.
    files: PURE,
    rules: {
      'layering/domain-is-pure': forbid(
        [...ADAPTERS, '**/http/**', '**/functions/**', '**/app/**', '**/infra/**', '**/local/**', ...AWS_SDK, '@middy/*'],
        "Pure code (lib/<area>/domain, the platform's rules and ports) imports no adapter (store/, transport/, platform/aws, platform/dynamo), no HTTP, lib/app, functions/, infra/, local/, @aws-sdk/* or @middy/*. Depend on a port instead.",
      ),
    },
  },
  {
    // The domain is the bottom layer: it owns the facts (event types, tracking modes, label formats
    // and limits) and the contracts derive their zod schemas from them, never the other way round.
    files: ['lib/*/domain/**'],
    rules: {
      'layering/domain-never-imports-contracts': forbid(
        ['**/contracts/**', '**/contracts.ts'],
        'A domain never imports contracts: move the fact into the domain and let the contract derive its schema from it.',
      ),
    },
  },
  {
    // Contracts describe the wire shapes on top of the domain; the transport (lib/platform/http,
    // functions/http) implements them, so a type both need lives in contracts or the domain.
    files: ['lib/*/contracts/**', 'lib/*/contracts.ts', 'lib/platform/contracts/**'],
    rules: {
      'layering/contracts-never-import-http': forbid(
        ['**/http/**'],
        'Contracts never import lib/platform/http or functions/http: define the shape in contracts (or the domain) and let the HTTP layer implement it.',
      ),
    },
  },
  {
    // The Middy chain is storage-blind: its middleware get their stores as ports from the
    // composition roots (lib/app/composition*.ts), so a read route's bundle carries no writer.
    files: ['lib/platform/http/**'],
    rules: {
      'layering/http-never-imports-store': forbid(
        ADAPTERS,
        'lib/platform/http never imports an adapter (store/, platform/aws, platform/dynamo): take a port, and wire the adapter in lib/app/composition*.ts.',
      ),
    },
  },
  {
    files: ['lib/**'],
    rules: {
      'layering/area-doors': 'error',
      'layering/platform-knows-no-area': 'error',
    },
  },
  {
    files: ['infra/**'],
    rules: { 'layering/infra-reads-declarations': 'error' },
  },
  {
    // Runtime code (what ships in a Lambda bundle) talks to AWS only through the adapters, so they
    // stay in known places. Tooling (local/, test/, bench/, scripts/, infra/) is deliberately out of
    // scope: it provisions and inspects the embedded stack and never ships in a bundle.
    files: ['functions/**', 'lib/**'],
    ignores: ['lib/*/store/**', 'lib/platform/aws/**', 'lib/platform/dynamo/**'],
    rules: {
      'layering/aws-sdk-only-in-adapters': forbid(
        AWS_SDK,
        'Only the adapters (lib/<area>/store, lib/platform/aws, lib/platform/dynamo) import @aws-sdk/*: add or extend one.',
      ),
    },
  },
  {
    ignores: ['test/**', 'bench/**'],
    rules: { 'layering/no-test-or-bench-imports': forbid([...TEST, ...BENCH], testOrBenchMessage) },
  },
  {
    // Tests share helpers through test/support; relative imports inside test/ carry no `test/`
    // segment, so only a reach into bench/ is left to forbid (and the reverse for bench/). The
    // bench's models and meters (bench/models/) are code with tests of their own.
    files: ['test/**'],
    rules: { 'layering/no-test-or-bench-imports': ['error', { patterns: [{ regex: '(^|/)bench/(?!models/)', message: testOrBenchMessage }] }] },
  },
  {
    files: ['bench/**'],
    rules: { 'layering/no-test-or-bench-imports': forbid(TEST, testOrBenchMessage) },
  },
  {
    // Workers run from SQS and the schedule, not API Gateway: pulling in the Middy chain would
    // bundle it into every worker. `**/http/**` covers lib/platform/http and functions/http.
    files: ['functions/workers/**'],
    rules: {
      'layering/workers-are-not-http': forbid(
        ['**/http/**'],
        'Workers do not import lib/platform/http or functions/http: shared code (e.g. lib/platform/observability/log.ts) lives outside them.',
      ),
    },
  },
  {
    files: ['test/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'MemberExpression[property.name=/^(only|skip)$/][object.name=/^(it|describe|test)$/]', message: 'No .only/.skip.' },
      ],
    },
  },
);
