import type { NativeAttributeValue } from '@aws-sdk/lib-dynamodb';

/**
 * The size DynamoDB counts for an item (against its 400 KB limit, and in read and write units),
 * by its published rules: attribute names and strings in UTF-8 bytes, a number 1 byte plus 1 per
 * two significant digits, a boolean or null 1 byte, a list or map 3 bytes plus 1 per element
 * plus its elements (a map's names included).
 */
export function storedItemBytes(item: Record<string, NativeAttributeValue>): number {
  return Object.entries(item).reduce((total, [name, value]) => total + Buffer.byteLength(name) + valueBytes(value), 0);
}

function valueBytes(value: NativeAttributeValue): number {
  if (value === null || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number') return 1 + Math.ceil(significantDigits(value) / 2);
  if (Array.isArray(value)) return 3 + value.reduce((total: number, element: NativeAttributeValue) => total + 1 + valueBytes(element), 0);
  if (typeof value === 'object') {
    return (
      3 +
      Object.entries(value as Record<string, NativeAttributeValue>).reduce(
        (total, [name, element]) => total + 1 + Buffer.byteLength(name) + valueBytes(element),
        0,
      )
    );
  }
  throw new Error(`No DynamoDB size for a ${typeof value}`);
}

function significantDigits(value: number): number {
  const digits = String(Math.abs(value)).replace(/e.*$/, '').replace('.', '').replace(/^0+/, '');
  return Math.max(1, digits.length);
}
