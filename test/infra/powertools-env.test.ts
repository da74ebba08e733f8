import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../lib/app/routes.ts';
import { WORKERS } from '../../lib/app/workers.ts';
import { stackSynthesizer } from './synth.ts';
import { environmentOf, resourcesOfType } from './template-helpers.ts';

/**
 * Every function's logger and metrics settings (docs/operations.md "Logs",
 * docs/operations.md "Metrics"): one service name, the stage's own metrics namespace, and the
 * stage's log level and debug sampling, overridable with context.
 */

const synth = stackSynthesizer();

function environments(context: Record<string, unknown>): [string, Record<string, unknown>][] {
  const { template } = synth(context);
  return resourcesOfType(template, 'AWS::Lambda::Function').map(([id]) => [id, environmentOf(template, id)]);
}

describe('Powertools settings of the functions', () => {
  it.each([
    ['dev', 'DEBUG'],
    ['pr-7', 'DEBUG'],
    ['staging', 'INFO'],
    ['prod', 'INFO'],
  ])('gives every function of stage %s the service, the stage namespace and log level %s, without debug sampling', (stage, level) => {
    // Act
    const functions = environments({ stage });

    // Assess: every route, every worker, the fallback and the API reference
    expect(functions.length).toBe(ROUTES.length + WORKERS.length + 2);
    for (const [id, environment] of functions) {
      expect(environment, id).toMatchObject({
        POWERTOOLS_SERVICE_NAME: 'customer-api',
        POWERTOOLS_METRICS_NAMESPACE: `CustomerApi/${stage}`,
        POWERTOOLS_LOG_LEVEL: level,
        POWERTOOLS_LOGGER_SAMPLE_RATE: '0',
      });
    }
  });

  it('takes the log level and the sampling rate from context', () => {
    // Act
    const functions = environments({ stage: 'prod', logLevel: 'warn', logSampleRate: '0.05' });

    // Assess
    for (const [id, environment] of functions) {
      expect(environment, id).toMatchObject({ POWERTOOLS_LOG_LEVEL: 'WARN', POWERTOOLS_LOGGER_SAMPLE_RATE: '0.05' });
    }
  });
});
