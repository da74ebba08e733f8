/**
 * Writes docs/openapi.json from the route table and the zod contracts (`npm run openapi`).
 * `--check` writes nothing and exits 1 when the committed file differs from the generated one.
 */
import { fileURLToPath } from 'node:url';
import { serializeOpenApiDocument } from '../lib/app/openapi/document.ts';
import { writeOrCheckGenerated } from './generated-file.ts';

writeOrCheckGenerated(fileURLToPath(new URL('../docs/openapi.json', import.meta.url)), serializeOpenApiDocument(), {
  command: 'npm run openapi',
  from: 'lib/<area>/routes.ts and the zod contracts',
});
