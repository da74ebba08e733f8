import { App } from 'aws-cdk-lib';
import { createCustomerApiStack } from './customer-api-stack.ts';

/**
 * CDK entry (cdk.json: `npx tsx infra/app.ts`). One stack per stage:
 *   npx cdk synth -c stage=prod [-c generalRateLimit=…] [-c submissionRateLimit=…] [-c logRetentionDays=…]
 *     [-c apiThrottleRate=…] [-c apiThrottleBurst=…] [-c importWorkerReservedConcurrency=…|none] [-c alarmTopicArn=…]
 * (infra/stages.ts has the defaults of each stage). The stack is environment-agnostic (no
 * account/region), so synth needs no credentials.
 */
const app = new App();
createCustomerApiStack(app);
app.synth();
