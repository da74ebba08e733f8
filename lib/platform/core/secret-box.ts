/**
 * Seals a secret at rest and opens it when needed: webhook signing secrets, and the stored
 * responses of confidential routes (the implementation, AES-256-GCM under a data key, is
 * lib/webhooks/store/webhook-secrets.ts). `context` is authenticated with it (associated data):
 * a sealed value opens only under the context it was sealed for, so one copied to another item
 * does not open there.
 */
export interface SecretBox {
  seal(secret: string, context: string): Promise<string>;
  open(sealed: string, context: string): Promise<string>;
}
