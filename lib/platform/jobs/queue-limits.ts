/** The longest SQS keeps a message (its maximum retention period). */
export const SQS_MAX_MESSAGE_RETENTION_DAYS = 14;
