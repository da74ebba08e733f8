import { ApiError } from '../../core/errors.ts';
import type { RouteDefinition } from '../../contracts/route-types.ts';
import { JSON_MEDIA_TYPES, negotiate, type ResponseMediaType } from '../content-negotiation.ts';
import { header } from '../headers.ts';
import { stateOf, type HttpMiddleware, type MiddyRequest } from '../types.ts';

export function offeredMediaTypes(route: RouteDefinition): readonly ResponseMediaType[] {
  return route.success.mediaType === 'image/svg+xml' ? ['image/svg+xml'] : JSON_MEDIA_TYPES;
}

/** Picks the response media type before any work is done, so a 406 costs nothing. */
export function negotiateResponse(route: RouteDefinition): HttpMiddleware {
  const offers = offeredMediaTypes(route);
  return {
    before: async (request: MiddyRequest) => {
      const chosen = negotiate(header(request.event, 'accept'), offers);
      if (!chosen) {
        throw new ApiError(406, 'customer-api.request.not-acceptable', 'Not acceptable', {
          detail: `This endpoint can respond with: ${offers.join(', ')}.`,
        });
      }
      stateOf(request).responseMediaType = chosen;
    },
  };
}
