/**
 * The door of the stock area: what another area's domain, contracts and routes may import of
 * it, nothing more (docs/architecture.md "Areas and their doors").
 */
export { exactlyOne, identifier, itemReference, locationReference, lotField, quantity } from './contracts/changes.ts';
export { decideAdjustment } from './domain/adjustments.ts';
export type { AdjustmentRow } from './domain/adjustments.ts';
export { referenceOf } from './domain/changes/command.ts';
export type { StockChangeReads, StockChangeWrite } from './domain/changes/command.ts';
export { InsufficientStockError } from './domain/changes/errors.ts';
export type { ShortLine } from './domain/changes/errors.ts';
export { recordsOf, resolveReferences, wantedReferences } from './domain/changes/references.ts';
export type { Reference } from './domain/changes/references.ts';
export { adjustmentClaimKey, buildClaimKey, claimKey, countClaimKey, receiptClaimKey, transferClaimKey } from './domain/claims.ts';
export { decideCountLine } from './domain/counts.ts';
export type { CountRow } from './domain/counts.ts';
export { lotError, refusal, refused } from './domain/decision.ts';
export type { StockDecision } from './domain/decision.ts';
export { StockLedger } from './domain/ledger.ts';
export type { StockSide, StockWrite } from './domain/ledger.ts';
export { decideReceiptLine, receivedAtTime } from './domain/receipts.ts';
export type { ReceiptRow } from './domain/receipts.ts';
export { MAX_DOCUMENT_LINES, MAX_ON_HAND, STOCK_MAX_LENGTHS, documentKey } from './domain/records.ts';
export type { DocumentType, StockEntry } from './domain/records.ts';
export { StockState } from './domain/state.ts';
export type { StockPlace, StockReads } from './domain/state.ts';
export { decideTransfer } from './domain/transfers.ts';
export type { TransferRow } from './domain/transfers.ts';
