import { isPlainObject } from './config.js';
import { checkIdentifier } from './identifier.js';
import { parseIsoDateTime } from './iso-date-time.js';
import type { PageviewStore } from './pageview-store.js';
import { readJsonBody } from './read-body.js';
import { errorAnswer, jsonAnswer } from './responses.js';
import { SPEC_MESSAGES } from './spec-messages.js';
import type { WebsiteDirectory } from './website-directory.js';

export interface Pageview {
  readonly websiteId: string;
  readonly visitorId: string;
  readonly atMs: number;
}

export interface PageviewEndpointParts {
  readonly directory: WebsiteDirectory;
  readonly store: PageviewStore;
  readonly now: () => number;
}

/**
 * `POST /api/v1/pageviews`: public, like a tracking pixel, so no token. Any
 * Content-Type is read as JSON because `navigator.sendBeacon` sends text/plain.
 */
export class PageviewEndpoint {
  readonly #parts: PageviewEndpointParts;

  constructor(parts: PageviewEndpointParts) {
    this.#parts = parts;
  }

  async handle(request: Request): Promise<Response> {
    const { directory, store, now } = this.#parts;
    const body = await readJsonBody(request);
    if (!body.ok) return errorAnswer(body.status, body.error);
    const nowMs = now();
    const pageview = parsePageview(body.json, nowMs);
    if ('error' in pageview) return errorAnswer(400, pageview.error);
    if (!directory.findById(pageview.websiteId)) return errorAnswer(404, SPEC_MESSAGES.websiteNotFound);
    store.record(pageview.websiteId, pageview.visitorId, pageview.atMs, nowMs);
    return jsonAnswer(202, { accepted: true });
  }
}

/** Validates a pageview body; fields other than the three known ones are ignored, as trackers send extras. */
export function parsePageview(json: unknown, nowMs: number): Pageview | { readonly error: string } {
  if (!isPlainObject(json)) return { error: 'Request body must be a JSON object like { "websiteId": "…", "visitorId": "…" }' };
  const websiteId = checkIdentifier('websiteId', json['websiteId']);
  if ('error' in websiteId) return websiteId;
  const visitorId = checkIdentifier('visitorId', json['visitorId']);
  if ('error' in visitorId) return visitorId;

  const { timestamp } = json;
  if (timestamp === undefined) return { websiteId: websiteId.value, visitorId: visitorId.value, atMs: nowMs };
  const atMs = typeof timestamp === 'string' ? parseIsoDateTime(timestamp) : undefined;
  if (atMs === undefined) return { error: 'timestamp must be an ISO 8601 date-time with a time zone, like 2025-01-31T12:00:00.000Z' };
  if (atMs > nowMs) return { error: 'timestamp must not be in the future' };
  return { websiteId: websiteId.value, visitorId: visitorId.value, atMs };
}
