import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { routeById } from '../../lib/app/routes.ts';
import { apiGatewayEvent, invocationContext } from '../../local/api-gateway-events.ts';
import { countDynamoDbRequests } from '../../local/dynamodb-requests.ts';
import { inProcessImports } from '../in-process-import.ts';
import { median, type Measure, type Suite } from './suite.ts';

/**
 * Lot traces (docs/performance.md "Lot traces"): a three-level chain made by real builds imports
 * (component lot C1 → `subs` subassembly lots, each → `finished` finished lots), then
 * `GET /v1/lots/trace` through its handler in this process, forward from C1 (every lot of the
 * chain) and backward from one finished lot, with the DynamoDB requests of one trace.
 */

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

function csv(header: string, rows: string[]): string {
  return `${[header, ...rows].join('\n')}\n`;
}

/** The chain's import files, in order. */
function chainFiles(subs: number, finished: number): Array<[kind: string, file: string]> {
  const subLots = Array.from({ length: subs }, (_, index) => `S${index}`);
  return [
    ['items', csv('sku,name,trackingMode', ['COMP,Component,lot', 'SUB,Subassembly,lot', 'FIN,Finished,lot'])],
    ['locations', csv('code,name,type', ['A1,Bin A1,bin'])],
    ['po-receipts', csv('poNumber,sku,locationCode,quantity,lot', [`PO-1,COMP,A1,${subs * finished},C1`])],
    ['boms', csv('bomCode,targetSku,componentSku,quantity', ['SUB-BOM,SUB,COMP,1', 'FIN-BOM,FIN,SUB,1'])],
    [
      'builds',
      csv(
        'buildReference,bomCode,quantity,locationCode,outputLot,componentSku,sourceLot',
        subLots.map((lot) => `B-${lot},SUB-BOM,${finished},A1,${lot},COMP,C1`),
      ),
    ],
    [
      'builds',
      csv(
        'buildReference,bomCode,quantity,locationCode,outputLot,componentSku,sourceLot',
        subLots.flatMap((lot) => Array.from({ length: finished }, (_, index) => `B-${lot}-F${index},FIN-BOM,1,A1,F-${lot}-${index},SUB,${lot}`)),
      ),
    ],
  ];
}

export const lotTraceSuite: Suite = {
  name: 'lot trace',
  async run(context) {
    const [{ createKey }, { keyRegistry }, { handler }, { dynamoClient }] = await Promise.all([
      import('../../lib/platform/auth/manage-keys.ts'),
      import('../../local/key-registry.ts'),
      import('../../functions/http/inventory/trace-lot.ts') as Promise<{ handler: Handler }>,
      import('../../lib/platform/aws/dynamodb-client.ts'),
    ]);
    const subs = context.quick ? 3 : 10;
    const finished = context.quick ? 3 : 10;
    const runs = context.quick ? 5 : 40;
    const imports = await inProcessImports();
    const organizationId = imports.newOrganization('lottrace');
    const seeded = performance.now();
    for (const [kind, file] of chainFiles(subs, finished)) await imports.runWhole(organizationId, kind, file);
    context.log(`lot trace: ${subs + subs * finished} builds made in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);
    const { key } = await createKey(keyRegistry(), { organizationId, name: 'bench lot trace', scopes: ['inventory:read'], environment: 'test' });
    const route = routeById('traceLot');
    const traceOnce = async (query: string): Promise<{ nodeCount: number }> => {
      const event = apiGatewayEvent(route, { key, query });
      const response = await handler(event, invocationContext(event));
      if (response.statusCode !== 200) throw new Error(`GET /v1/lots/trace answered ${response.statusCode}: ${String(response.body)}`);
      return JSON.parse(String(response.body)) as { nodeCount: number };
    };
    const traces = {
      forward: { query: 'sku=COMP&lot=C1&direction=forward&depth=5', nodes: subs + subs * finished },
      backward: { query: 'sku=FIN&lot=F-S0-0&direction=backward&depth=5', nodes: 2 },
    };
    // The index is eventually consistent: wait until it shows every build before timing.
    for (const { query, nodes } of Object.values(traces)) {
      const deadline = Date.now() + 30_000;
      while ((await traceOnce(query)).nodeCount !== nodes) {
        if (Date.now() > deadline) throw new Error(`lot trace: ${query} never showed ${nodes} nodes`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const measures: Measure[] = [];
    for (const [direction, { query, nodes }] of Object.entries(traces)) {
      const samples: number[] = [];
      let requests: string[] = [];
      for (let run = 0; run < runs; run += 1) {
        const counter = countDynamoDbRequests(dynamoClient);
        const started = performance.now();
        await traceOnce(query);
        samples.push(performance.now() - started);
        counter.stop();
        requests = counter.operations();
      }
      const queries = requests.filter((operation) => operation === 'Query').length;
      measures.push(
        {
          name: `lot trace 3 levels p50, ${direction} (ms)`,
          value: round(median(samples)),
          unit: 'ms',
          note: `${nodes} nodes, ${runs} runs, handler in process`,
        },
        {
          name: `lot trace 3 levels DynamoDB requests, ${direction}`,
          value: requests.length,
          unit: 'requests',
          note: `${queries} Query, ${requests.length - queries} other (${[...new Set(requests)].join(', ')}), rate-limit lease included when it happens`,
        },
      );
    }
    return measures;
  },
};

const round = (value: number) => Math.round(value * 100) / 100;
