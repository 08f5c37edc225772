import type { RealtimeReport } from '../../src/contract/report.js';

/**
 * A request that gets no answer, in the words every fake service of the tests uses: `hang` (no
 * answer until the request is aborted) or `network-error` (fetch rejects, as offline, DNS or CORS).
 */
export type NoAnswer = 'hang' | 'network-error';

/** What the fake service does with one request. */
export type Reply = { status?: number; headers?: Record<string, string>; body?: unknown; raw?: string } | NoAnswer;

export interface RecordedRequest {
  url: string;
  headers: Headers;
  at: number;
}

/**
 * A stand-in for the realtime service behind `fetch`: answers from a settable reply (a
 * report by default), and records every request with the fake-clock time it arrived.
 */
export class FakeService {
  readonly requests: RecordedRequest[] = [];
  count = 23;
  reply: ((request: RecordedRequest) => Reply) | null = null;

  readonly fetch = async (input: string, init: RequestInit = {}): Promise<Response> => {
    const request: RecordedRequest = { url: input, headers: new Headers(init.headers), at: Date.now() };
    this.requests.push(request);
    const reply = this.reply?.(request) ?? { body: this.report(request) };
    if (reply === 'network-error') throw new TypeError('Failed to fetch');
    if (reply === 'hang') {
      return new Promise((_, reject) => {
        init.signal?.addEventListener('abort', () => reject(new DOMException('Aborted', 'AbortError')));
      });
    }
    const text = reply.raw ?? JSON.stringify(reply.body);
    return new Response(text, {
      status: reply.status ?? 200,
      headers: { 'content-type': 'application/json', ...reply.headers },
    });
  };

  report(request: RecordedRequest): RealtimeReport {
    const websiteId = new URL(request.url).searchParams.get('websiteId') ?? '';
    return { currentVisitors: this.count, websiteId, timestamp: new Date().toISOString() };
  }

  /** Seconds (fake clock) since `since` at which requests arrived. */
  times(since = 0): number[] {
    return this.requests.map((request) => (request.at - since) / 1000);
  }
}
