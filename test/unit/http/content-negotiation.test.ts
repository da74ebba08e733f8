import { describe, expect, it } from 'vitest';
import { isJsonRequestMediaType, JSON_MEDIA_TYPES, negotiate } from '../../../lib/platform/http/content-negotiation.ts';

describe('negotiate', () => {
  it.each([
    [undefined, 'application/json'],
    ['', 'application/json'],
    ['*/*', 'application/json'],
    ['text/json', 'text/json'],
    ['text/plain', 'text/plain'],
    ['text/*', 'text/json'],
    ['text/plain;q=0.9, text/json;q=0.5', 'text/plain'],
    ['application/xml, */*;q=0.1', 'application/json'],
    ['APPLICATION/JSON', 'application/json'],
    ['application/json;q=0, text/plain', 'text/plain'],
  ])('Accept %j picks %s', (accept, expected) => {
    // Act
    const chosen = negotiate(accept, JSON_MEDIA_TYPES);
    // Assess
    expect(chosen).toBe(expected);
  });

  it.each(['application/xml', 'image/png', 'application/json;q=0', 'text/html'])('Accept %j is not acceptable', (accept) => {
    expect(negotiate(accept, JSON_MEDIA_TYPES)).toBeUndefined();
  });

  it('prefers the more specific range over a wildcard', () => {
    expect(negotiate('*/*;q=0.1, image/svg+xml;q=0', ['image/svg+xml'])).toBeUndefined();
  });
});

describe('isJsonRequestMediaType', () => {
  it.each(['application/json', 'application/json; charset=utf-8', 'text/json', 'application/merge-patch+json', 'Application/JSON'])('%s is JSON', (type) =>
    expect(isJsonRequestMediaType(type)).toBe(true),
  );
  it.each([undefined, '', 'text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/jsonx'])('%s is not JSON', (type) =>
    expect(isJsonRequestMediaType(type)).toBe(false),
  );
});
