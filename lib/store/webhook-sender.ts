// STAND-IN (not committed): the webhook-send branch provides the real module.
export interface WebhookAttemptResult { outcome: 'succeeded' | 'failed' | 'gone'; responseStatus: number | null; durationMs: number; error: string | null; retryAfterSeconds: number | null }
export function createWebhookSender(options: { allowLoopback: boolean; resolve?: (host: string) => Promise<string[]>; timeoutMs?: number }): { send(input: { url: string; body: string; headers: Record<string, string> }): Promise<WebhookAttemptResult> } {
  const timeoutMs = options.timeoutMs ?? 15_000;
  return {
    async send(input) {
      const started = Date.now();
      try {
        const response = await fetch(input.url, { method: 'POST', body: input.body, headers: { 'content-type': 'application/json', 'user-agent': 'customer-api-webhooks', ...input.headers }, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
        await response.arrayBuffer();
        const status = response.status;
        const retryAfter = response.headers.get('retry-after');
        return { outcome: status >= 200 && status < 300 ? 'succeeded' : status === 410 ? 'gone' : 'failed', responseStatus: status, durationMs: Date.now() - started, error: status >= 200 && status < 300 ? null : `HTTP ${status}`, retryAfterSeconds: retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) : null };
      } catch (error) {
        return { outcome: 'failed', responseStatus: null, durationMs: Date.now() - started, error: (error as Error).message, retryAfterSeconds: null };
      }
    },
  };
}
