import type { InventoryClient } from '../create-client.ts';
import { feedPages, type FeedOptions, type FeedPage } from './feed-pages.ts';

/**
 * Hands every page of the feed to `handle`, checkpointing each page after `handle` has resolved
 * (docs/client.md#checkpointing). A rejected `handle` stops the consumer with that error and
 * leaves the page un-checkpointed. Resolves when the signal aborts (or at the tail with `follow: false`).
 */
export async function consumeFeed(client: InventoryClient, options: FeedOptions & { handle: (page: FeedPage) => Promise<void> | void }): Promise<void> {
  for await (const page of feedPages(client, options)) await options.handle(page);
}
