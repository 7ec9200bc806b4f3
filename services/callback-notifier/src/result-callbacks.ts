import { boundedCache } from '@smsgw/kit';
import { callbackSuccessText, type MessageResultEvent } from '@smsgw/contracts';
import type { CallbackStore } from './callback-store';

/**
 * Turns a batch message's outcome into its one callback (docs/architecture.md § Wire
 * compatibility): callback_url when the SMSC took it, errback_url when it failed for good. Query
 * strings already in the URL are kept.
 */
export class ResultCallbacks {
  private readonly urls = boundedCache<
    string,
    { callback_url: string | null; errback_url: string | null }
  >(10_000);

  constructor(private readonly store: CallbackStore) {}

  /** true when a request was queued (false: no URL for this outcome, or queued already). */
  async handle(event: MessageResultEvent): Promise<boolean> {
    if (!event.batchId) return false;
    let urls = this.urls.get(event.batchId);
    if (!urls) {
      urls = await this.store.batchUrls(event.batchId);
      if (!urls) return false;
      this.urls.set(event.batchId, urls);
    }
    const success = event.outcome === 'submitted';
    const url = success ? urls.callback_url : urls.errback_url;
    if (!url) return false;
    return this.store.enqueue({
      message_id: event.messageId,
      kind: success ? 'callback' : 'errback',
      url,
      method: 'GET',
      query: {
        batchId: event.batchId,
        to: event.to,
        status: success ? '1' : '0',
        statusText: success ? callbackSuccessText(event.messageId) : (event.error ?? 'failed'),
      },
    });
  }
}
