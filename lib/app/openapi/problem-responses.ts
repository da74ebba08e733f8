import type { JsonObject } from '../../platform/contracts/json.ts';

/**
 * Error responses (RFC 9457 problem documents) and the response headers of the shared chain
 * (rate limits, authentication, idempotent replays), for every operation of the document.
 */

const PROBLEM_MEDIA_TYPE = 'application/problem+json';
const PROBLEM_REF = '#/components/schemas/ProblemDetails';

/** Statuses every operation can answer with, whatever its route says (the shared chain's). */
export const CHAIN_ERROR_STATUSES = [401, 403, 406, 429, 500] as const;

const ERROR_RESPONSES: Record<number, { name: string; description: string }> = {
  400: {
    name: 'BadRequest',
    description:
      'A query, path, header, form or body value is invalid (`customer-api.validation.failed` and the more specific 400 codes); validation problems list every invalid value in `errors`.',
  },
  401: {
    name: 'Unauthorized',
    description: 'The API key is missing, malformed, unknown, revoked or expired (`customer-api.auth.unauthenticated`).',
  },
  403: {
    name: 'Forbidden',
    description: 'The API key lacks the scope the operation requires (`customer-api.auth.insufficient-scope`); `requiredScope` names it.',
  },
  404: {
    name: 'NotFound',
    description: 'The resource does not exist or belongs to another organization (`customer-api.<area>.not-found`).',
  },
  405: { name: 'MethodNotAllowed', description: 'The path does not support this method (`customer-api.request.method-not-allowed`).' },
  406: {
    name: 'NotAcceptable',
    description: 'None of the media types the operation offers is acceptable per `Accept` (`customer-api.request.not-acceptable`).',
  },
  409: {
    name: 'Conflict',
    description:
      'The request conflicts with the current state, or its `Idempotency-Key` was used for a different request (`customer-api.idempotency.key-reused`) or is still in progress (`customer-api.idempotency.in-progress`).',
  },
  413: { name: 'PayloadTooLarge', description: 'The request body is too large (`customer-api.request.too-large`).' },
  415: {
    name: 'UnsupportedMediaType',
    description: 'The request body has a media type the operation does not accept (`customer-api.request.unsupported-media-type`).',
  },
  429: {
    name: 'TooManyRequests',
    description: 'A rate limit of the API key is exhausted (`customer-api.rate-limit.exceeded`); retry after `Retry-After` seconds.',
  },
  500: { name: 'InternalServerError', description: 'An unexpected error (`customer-api.internal`); `detail` is generic.' },
};

/** What a route's own error status means; its problem codes follow in the response description. */
const ROUTE_STATUS_TEXT: Record<number, string> = {
  400: 'A query, path, header, form or body value is invalid; a validation problem (`customer-api.validation.failed`) lists every invalid value in `errors`.',
  404: 'The resource does not exist or belongs to another organization.',
  409: 'The request conflicts with the current state, or its `Idempotency-Key` was used for a different request or is still in progress.',
  413: 'The request body is too large.',
  415: 'The request body has a media type the operation does not accept.',
};

function errorInfo(status: number): { name: string; description: string } {
  return ERROR_RESPONSES[status] ?? { name: `Status${status}`, description: `Problem with status ${status}.` };
}

const HEADER_COMPONENTS: Record<string, JsonObject> = {
  RateLimit: {
    description: 'Remaining quota of the API key in the current 60-second window (IETF draft RateLimit header fields).',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description: 'The quota policies applied to the API key (IETF draft RateLimit header fields).',
    schema: { type: 'string' },
  },
  'Retry-After': {
    description: 'Whole seconds to wait before retrying.',
    schema: { type: 'integer', minimum: 1 },
  },
  'WWW-Authenticate': {
    description: 'Always `Bearer`.',
    schema: { type: 'string' },
  },
  'Idempotent-Replayed': {
    description: '`true` when this response is the stored response of an earlier request with the same `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] },
  },
};

/**
 * The error responses and headers the operations share: each is written once under
 * `components` and referenced, and only the ones some operation uses are kept.
 */
export class ResponseComponents {
  private readonly responseComponents = new Map<number, JsonObject>();
  private readonly headerComponents = new Set<string>();

  headerRef(name: string): JsonObject {
    if (HEADER_COMPONENTS[name] === undefined) throw new Error(`No header component '${name}'`);
    this.headerComponents.add(name);
    return { $ref: `#/components/headers/${name}` };
  }

  rateLimitHeaders(): JsonObject {
    return { RateLimit: this.headerRef('RateLimit'), 'RateLimit-Policy': this.headerRef('RateLimit-Policy') };
  }

  problemResponse(status: number, extraMediaTypes: readonly string[] = []): JsonObject {
    const headers = this.rateLimitHeaders();
    if (status === 401) headers['WWW-Authenticate'] = this.headerRef('WWW-Authenticate');
    if (status === 429) headers['Retry-After'] = this.headerRef('Retry-After');
    const content: JsonObject = { [PROBLEM_MEDIA_TYPE]: { schema: { $ref: PROBLEM_REF } } };
    for (const mediaType of extraMediaTypes) {
      if (mediaType in content) continue;
      content[mediaType] = /[/+]json$/.test(mediaType)
        ? { schema: { $ref: PROBLEM_REF } }
        : { schema: { type: 'string', description: `The problem rendered as ${mediaType}.` } };
    }
    return { description: errorInfo(status).description, headers, content };
  }

  /**
   * A route's own error status: the status text, then the problem `code`s the operation answers
   * with, listed in the description and pinned in the schema (so a validator rejects any other).
   */
  operationProblemResponse(status: number, codes: readonly string[], extraMediaTypes: readonly string[]): JsonObject {
    const response = this.problemResponse(status, extraMediaTypes);
    if (codes.length === 0) return response;
    const text = ROUTE_STATUS_TEXT[status] ?? errorInfo(status).description;
    response.description = [text, '', 'Problem `code`s:', ...codes.map((code) => `- \`${code}\``)].join('\n');
    const content = response.content as JsonObject;
    for (const [mediaType, media] of Object.entries(content)) {
      if (!/[/+]json$/.test(mediaType)) continue;
      content[mediaType] = {
        ...(media as JsonObject),
        schema: { allOf: [{ $ref: PROBLEM_REF }, { type: 'object', properties: { code: { enum: [...codes] } } }] },
      };
    }
    return response;
  }

  sharedErrorRef(status: number): JsonObject {
    if (!this.responseComponents.has(status)) this.responseComponents.set(status, this.problemResponse(status));
    return { $ref: `#/components/responses/${errorInfo(status).name}` };
  }

  /** `components.responses`: the shared error responses some operation referenced, by status. */
  responsesJson(): JsonObject {
    const responses: JsonObject = {};
    for (const status of [...this.responseComponents.keys()].sort((a, b) => a - b)) {
      const response = this.responseComponents.get(status);
      if (response) responses[errorInfo(status).name] = response;
    }
    return responses;
  }

  /** `components.headers`: the header components some response referenced, in declaration order. */
  headersJson(): JsonObject {
    const headers: JsonObject = {};
    for (const name of Object.keys(HEADER_COMPONENTS)) {
      const header = HEADER_COMPONENTS[name];
      if (header && this.headerComponents.has(name)) headers[name] = header;
    }
    return headers;
  }
}
