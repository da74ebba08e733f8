import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * Stands in for `@aws-sdk/credential-provider-node` in Lambda bundles only: infra/bundling.ts
 * aliases that package to this module, so every AWS client's `credentialDefaultProvider` reads
 * the credentials Lambda puts in the environment and nothing else. The default chain would find
 * them in the environment first anyway; what it adds (SSO, STS, ini files, processes, IMDS and
 * the `@aws-sdk/nested-clients` they call) can never run on Lambda and was over a quarter of each
 * read function's bundle. Why this is safe, and when it would not be: docs/operations.md#bundles.
 *
 * Same name and call shape as the package's export: the clients call it with their resolved
 * config (it only reads `logger`) and use the provider it returns. Code that runs outside a
 * bundle (the local runtime, tests, scripts) never sees this module and keeps the full chain.
 */
export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]): ReturnType<typeof fromEnv> => fromEnv(init);
