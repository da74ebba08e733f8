import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';

/** One action of a TransactWriteItems call, in the document client's shape. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** DynamoDB's limit of actions per transaction (100); the local stack lowers it to its DynamoDB Local's 10. */
export const MAX_TRANSACTION_ITEMS = Number(process.env.DYNAMODB_MAX_TRANSACTION_ITEMS) || 100;
