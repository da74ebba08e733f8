import { createFallbackHandler } from '../../../lib/http/fallback.ts';

export const handler = createFallbackHandler();
