/**
 * Stands in for `debug` in Lambda bundles (`LAMBDA_ALIASES` of infra/bundling.ts). Only the
 * content sniffer's zip reader (@tokenizer/inflate, under file-type) uses it, to trace its steps;
 * `debug` prints only for namespaces named in the `DEBUG` environment variable, which no function
 * sets, and our logs go through Powertools (lib/platform/observability/log.ts). So every logger here is disabled, as the
 * real one would be, without its ~7 KB (terminal colours, formatters, the `DEBUG` parser).
 */

interface Debugger {
  (formatter: unknown, ...args: unknown[]): void;
  enabled: boolean;
  namespace: string;
  extend(namespace: string, delimiter?: string): Debugger;
}

function createDebug(namespace: string): Debugger {
  const log = (() => undefined) as unknown as Debugger;
  log.enabled = false;
  log.namespace = namespace;
  log.extend = (suffix: string, delimiter = ':') => createDebug(`${namespace}${delimiter}${suffix}`);
  return log;
}

createDebug.enabled = (_namespace: string): boolean => false;
createDebug.enable = (_namespaces: string): void => undefined;
createDebug.disable = (): string => '';

export default createDebug;
