import { BOM_LIMITS } from '../../lib/boms/domain/bom.ts';
import type { BomCommandPorts } from '../../lib/boms/domain/commands.ts';
import type { Item } from '../../lib/inventory/domain/item.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';

/**
 * The largest BOM the API accepts (docs/boms.md "Model"): every text at its longest, in the
 * characters that weigh most where it is measured. `wide`: 3 UTF-8 bytes each, what a character
 * weighs most in DynamoDB (stored items). `escaped`: a 6-byte JSON escape each (`\u0001`; an
 * identifier, which may hold no control character, `"` and its 2-byte escape), what a character
 * weighs most in JSON (request and response bodies, the idempotency record's stored response).
 * Numbers are written as long as they may be.
 */

export type WorstText = 'wide' | 'escaped';

const CHARACTERS: Record<WorstText, { text: readonly [string, string]; identifier: readonly [string, string] }> = {
  // Two of each, so that an update can change every text to another of the same weight.
  wide: { text: ['\u6f22', '\u5b57'], identifier: ['\u6f22', '\u5b57'] },
  escaped: { text: ['\u0001', '\u0002'], identifier: ['"', '\\'] },
};

/** The longest quantity (at most 1,000,000,000 and 6 decimals) and scrap percentage (0..100, 6 decimals) as JSON writes them. */
export const LONGEST_QUANTITY = 999_999_999.999999;
export const LONGEST_SCRAP_PERCENT = 99.999999;

/** An id as long as the schema takes one (`[a-z]{2,4}_[0-9A-Za-z]{10,40}`): 45 characters. */
export const longestId = (index: number) => `itmx_${String(index).padStart(40, '0')}`;

export interface WorstCaseOptions {
  /** The components' item ids, one line each. */
  itemIds: readonly string[];
  targetItemId: string;
  text: WorstText;
  /** Which of the two characters of the weight (an update to the other changes every text). */
  alternate?: boolean;
}

/** The unit every line names, as long as a unit may be: the component items must be kept in it. */
export function worstCaseUnit(text: WorstText, alternate = false): string {
  return (CHARACTERS[text].identifier[alternate ? 1 : 0] ?? '').repeat(BOM_LIMITS.unit);
}

/** A create body (`code` included) of `itemIds.length` lines, every value at its largest. */
export function worstCaseBomBody({ itemIds, targetItemId, text, alternate = false }: WorstCaseOptions) {
  const character = CHARACTERS[text].text[alternate ? 1 : 0] ?? '';
  const identifier = CHARACTERS[text].identifier[alternate ? 1 : 0] ?? '';
  const unit = worstCaseUnit(text, alternate);
  return {
    code: identifier.repeat(BOM_LIMITS.code),
    name: character.repeat(BOM_LIMITS.name),
    targetItemId,
    status: 'obsolete' as const,
    outputQuantity: LONGEST_QUANTITY,
    unit,
    notes: character.repeat(BOM_LIMITS.notes),
    components: itemIds.map((itemId) => ({
      itemId,
      quantity: LONGEST_QUANTITY,
      unit,
      scrapPercent: LONGEST_SCRAP_PERCENT,
      notes: character.repeat(BOM_LIMITS.lineNotes),
    })),
  };
}

/**
 * Item checks for BOM commands run without items: every item named exists, kept in `unit`. A BOM
 * naming more items than a transaction checks (500 lines) is checked by this one batch read.
 */
export function worstCaseItemPorts(unit: string): BomCommandPorts<StoreWrite>['items'] {
  const unexpected = () => {
    throw new Error('500 lines are checked by one batch read, not in the transaction');
  };
  return {
    // The generic signature cannot see that `type` is always `item` here.
    getByIds: async (_organizationId, _type, ids) => new Map([...ids].map((id) => [id, { record: { id, unit } as Item as never, version: 1 }])),
    existsCheck: unexpected,
    unchangedCheck: unexpected,
  };
}
