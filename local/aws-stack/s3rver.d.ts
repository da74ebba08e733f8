/** Minimal types for s3rver 3.x (the package ships none). Only what the local stack uses. */
declare module 's3rver' {
  import type { AddressInfo } from 'node:net';

  interface S3rverBucketConfig {
    name: string;
    /** CORS or website configuration XML documents. */
    configs?: Array<string | Buffer>;
  }

  interface S3rverOptions {
    address?: string;
    port?: number;
    directory?: string;
    silent?: boolean;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    vhostBuckets?: boolean;
    serviceEndpoint?: string;
    configureBuckets?: S3rverBucketConfig[];
  }

  class S3rver {
    constructor(options?: S3rverOptions);
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
    reset(): void;
  }

  export = S3rver;
}
