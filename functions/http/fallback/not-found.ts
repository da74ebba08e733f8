import { createFallbackHandler } from '../../../lib/app/fallback.ts';

export const handler = createFallbackHandler();
