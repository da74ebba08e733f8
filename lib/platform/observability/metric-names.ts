/** The metrics' names, declared apart from the runtime that emits them so that infra/ (alarms, dashboards) reads them without it. */

/** Every metric of the service; docs/operations.md "Metrics" lists each with its dimensions. */
export const METRIC = {
  requests: 'Requests',
  rejections: 'Rejections',
  feedPagesServed: 'FeedPagesServed',
  importMessages: 'ImportMessages',
  importMessagesFailed: 'ImportMessagesFailed',
  importRows: 'ImportRows',
  webhookAttempts: 'WebhookAttempts',
  webhookCommitToAttempt: 'WebhookCommitToFirstAttempt',
} as const;
