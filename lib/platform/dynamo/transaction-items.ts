import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';

/** One action of a TransactWriteItems call, in the document client's shape. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** DynamoDB's limit of actions per TransactWriteItems call, on AWS and on DynamoDB Local 3.x alike. */
export const MAX_TRANSACTION_ITEMS = 100;
