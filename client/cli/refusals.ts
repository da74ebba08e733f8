import { ApiProblemError } from '../errors/api-problem-error.ts';
import type { ProblemDetails } from '../types.ts';
import type { CliContext } from './context.ts';

/** A command of the CLI: its arguments after `<area> <command>`, its exit status. */
export type CommandHandler = (args: string[], context: CliContext) => Promise<number>;

/**
 * A refusal as the shared handling prints it (`409 code: detail (traceId …)`, exit 1), followed by
 * what the detail points to: the problem's `lines` (what is available, what a line has left), its
 * `errors` (a pointer each), then what `named` finds in it (the reservation, the build, a status),
 * one a line, indented; so that a refusal on stderr says what to do next without a second call.
 */
export function explainingRefusals(handler: CommandHandler, named: (problem: ProblemDetails) => Array<string | false | null | undefined>): CommandHandler {
  return async (args, context) => {
    try {
      return await handler(args, context);
    } catch (error) {
      if (!(error instanceof ApiProblemError) || typeof error.problem !== 'object' || context.signal.aborted) throw error;
      const { lines = [] } = error.problem;
      context.stderr.write(`${error.message}\n`);
      for (const { pointer, name, message } of error.errors) context.stderr.write(`  ${pointer ?? name ?? ''}: ${message}\n`);
      for (const line of lines) context.stderr.write(`  ${JSON.stringify(line)}\n`);
      const names = named(error.problem).filter(Boolean);
      if (names.length > 0) context.stderr.write(`  ${names.join(', ')}\n`);
      return 1;
    }
  };
}
