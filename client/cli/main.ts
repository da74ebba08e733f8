import { fileURLToPath } from 'node:url';
import { createInventoryClient } from '../create-client.ts';
import { ApiNetworkError } from '../errors/network-error.ts';
import { ApiProblemError } from '../errors/api-problem-error.ts';
import { RepeatedCursorError } from '../errors/repeated-cursor-error.ts';
import { BARCODES_RENDER_USAGE, barcodesRender } from './commands/barcodes-render.ts';
import { BUILDS_USAGE, buildsGet, buildsSubmit } from './commands/builds.ts';
import { CATALOG_USAGE, itemsCreate, itemsUpdate, locationsCreate, locationsUpdate } from './commands/catalog.ts';
import { EVENTS_LISTEN_USAGE, eventsListen } from './commands/events-listen.ts';
import { EVENTS_TAIL_USAGE, eventsTail } from './commands/events-tail.ts';
import { EXPORTS_CREATE_USAGE, exportsCreate } from './commands/exports-create.ts';
import { IMPORTS_SUBMIT_USAGE, importsSubmit } from './commands/imports-submit.ts';
import { ITEMS_AVAILABILITY_USAGE, ITEMS_GET_USAGE, itemsAvailability, itemsGet, STOCK_LIST_USAGE, stockList } from './commands/inventory.ts';
import { LOTS_TRACE_USAGE, lotsTrace } from './commands/lots-trace.ts';
import { RESERVATIONS_USAGE, reservationsCreate, reservationsGet, reservationsList, reservationsSettle } from './commands/reservations.ts';
import { STOCK_CHANGES_USAGE, stockChange } from './commands/stock-changes.ts';
import { WEBHOOKS_USAGE, webhooksCreate, webhooksDeliveries, webhooksList, webhooksReplay } from './commands/webhooks.ts';
import { UsageError, type CliContext } from './context.ts';

/**
 * `npm run cli -- <area> <command> …`: a small command line over the client (docs/client.md#cli).
 * Results go to stdout, progress and diagnostics to stderr.
 */

const COMMANDS: Record<string, (args: string[], context: CliContext) => Promise<number>> = {
  'events tail': eventsTail,
  'events listen': eventsListen,
  'imports submit': importsSubmit,
  'exports create': exportsCreate,
  'barcodes render': barcodesRender,
  'items get': itemsGet,
  'items availability': itemsAvailability,
  'items create': itemsCreate,
  'items update': itemsUpdate,
  'locations create': locationsCreate,
  'locations update': locationsUpdate,
  'stock list': stockList,
  'stock adjust': stockChange('adjust'),
  'stock transfer': stockChange('transfer'),
  'stock count': stockChange('count'),
  'stock receive': stockChange('receive'),
  'reservations create': reservationsCreate,
  'reservations list': reservationsList,
  'reservations get': reservationsGet,
  'reservations release': reservationsSettle('release'),
  'reservations fulfil': reservationsSettle('fulfil'),
  'builds submit': buildsSubmit,
  'builds get': buildsGet,
  'lots trace': lotsTrace,
  'webhooks create': webhooksCreate,
  'webhooks list': webhooksList,
  'webhooks deliveries': webhooksDeliveries,
  'webhooks replay': webhooksReplay,
};

export const USAGE = `Usage: npm run cli -- <area> <command> [options]

  ${EVENTS_TAIL_USAGE}

  ${EVENTS_LISTEN_USAGE}

  ${IMPORTS_SUBMIT_USAGE}

  ${EXPORTS_CREATE_USAGE}

  ${BARCODES_RENDER_USAGE}

  ${ITEMS_GET_USAGE}

  ${ITEMS_AVAILABILITY_USAGE}

  ${CATALOG_USAGE}

  ${STOCK_LIST_USAGE}

  ${STOCK_CHANGES_USAGE}

  ${RESERVATIONS_USAGE}

  ${BUILDS_USAGE}

  ${LOTS_TRACE_USAGE}

  ${WEBHOOKS_USAGE}

Every command takes --url URL (else INVENTORY_API_URL), --key KEY (else INVENTORY_API_KEY) and
--max-attempts N (attempts per request, retries included; default 5).
Exit status: 0 done, 1 the API refused or the work failed, 2 a usage mistake, 130 interrupted.
`;

export async function runCli(argv: string[], context: CliContext): Promise<number> {
  const [area, command, ...rest] = argv;
  const run = COMMANDS[`${area} ${command}`];
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
    context.stdout.write(USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  try {
    if (!run) throw new UsageError(`Unknown command '${[area, command].filter(Boolean).join(' ')}'.`);
    return await run(rest, context);
  } catch (error) {
    if (error instanceof UsageError || (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))) {
      context.stderr.write(`${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (context.signal.aborted) return 130;
    if (error instanceof ApiProblemError || error instanceof ApiNetworkError || error instanceof RepeatedCursorError) {
      context.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

async function main(): Promise<void> {
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  process.exitCode = await runCli(process.argv.slice(2), {
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    interactive: Boolean(process.stderr.isTTY),
    signal: controller.signal,
    createClient: createInventoryClient,
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
