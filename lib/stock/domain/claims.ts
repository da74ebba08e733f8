/**
 * The natural key a stock row or a JSON stock line is claimed under (docs/inventory.md "Import
 * kinds"): its import kind and natural key fields, as JSON, so no cell's content can make two keys
 * meet. An import row and a JSON line of the same kind and fields share one key, so the same
 * reference moves stock once through either door.
 */
export function claimKey(kind: string, ...fields: Array<string | null>): string {
  return JSON.stringify([kind, ...fields]);
}

/** `stock-adjustments`: reference + sku + locationCode + lot. */
export function adjustmentClaimKey(reference: string, sku: string, locationCode: string, lot: string | null): string {
  return claimKey('stock-adjustments', reference, sku, locationCode, lot);
}

/** `stock-transfers`: reference + sku + lot. */
export function transferClaimKey(reference: string, sku: string, lot: string | null): string {
  return claimKey('stock-transfers', reference, sku, lot);
}

/** `stock-counts`: countReference + sku + lot. */
export function countClaimKey(countReference: string, sku: string, lot: string | null): string {
  return claimKey('stock-counts', countReference, sku, lot);
}

/** `po-receipts`: poNumber + sku + locationCode + lot. */
export function receiptClaimKey(poNumber: string, sku: string, locationCode: string, lot: string | null): string {
  return claimKey('po-receipts', poNumber, sku, locationCode, lot);
}

/** `builds`: buildReference. A build over JSON claims the same key, so a reference builds once through either door. */
export function buildClaimKey(buildReference: string): string {
  return claimKey('builds', buildReference);
}
