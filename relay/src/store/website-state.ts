import { isPlainObject } from '../../../server-kit/config-checks.js';
import type { RealtimeErrorKind } from '../../../src/contract/errors.js';
import { parseReport } from '../../../src/contract/report.js';
import type { SharedAnswer, StoredFailure, WebsiteState } from './relay-store.js';

const KINDS: ReadonlySet<string> = new Set<RealtimeErrorKind>([
  'unauthorized',
  'bad-request',
  'not-found',
  'rate-limited',
  'server',
  'network',
  'timeout',
  'invalid-response',
]);

/**
 * A state read back from a shared store, checked: another program (or an older relay) may have
 * written the key, and its body goes to browsers as it is. Null for anything that is not a state
 * this relay wrote for `websiteId`.
 */
export function parseWebsiteState(text: string, websiteId: string): WebsiteState | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isPlainObject(value)) return null;
  const { answer, failures, nextAttemptAtMs, failure } = value;
  if (!isCount(failures) || typeof nextAttemptAtMs !== 'number' || !Number.isFinite(nextAttemptAtMs)) return null;
  const parsedAnswer = answer === null ? null : parseAnswer(answer, websiteId);
  const parsedFailure = failure === null ? null : parseFailure(failure);
  if (parsedAnswer === undefined || parsedFailure === undefined) return null;
  return { answer: parsedAnswer, failures, nextAttemptAtMs, failure: parsedFailure };
}

function parseAnswer(value: unknown, websiteId: string): SharedAnswer | undefined {
  if (!isPlainObject(value)) return undefined;
  const { body, etag, fetchedAtMs } = value;
  if (typeof body !== 'string' || typeof etag !== 'string' || typeof fetchedAtMs !== 'number' || !Number.isFinite(fetchedAtMs)) {
    return undefined;
  }
  if (!/^"[\w-]{1,64}"$/.test(etag) || !isReportBody(body, websiteId)) return undefined;
  return { body, etag, fetchedAtMs };
}

/** Exactly the body the relay writes: the contract's report for this website, serialised. */
function isReportBody(body: string, websiteId: string): boolean {
  try {
    const report = parseReport(JSON.parse(body), websiteId);
    return typeof report !== 'string' && JSON.stringify(report) === body;
  } catch {
    return false;
  }
}

function parseFailure(value: unknown): StoredFailure | undefined {
  if (!isPlainObject(value)) return undefined;
  const { kind, status, reason } = value;
  if (typeof kind !== 'string' || !KINDS.has(kind) || typeof reason !== 'string') return undefined;
  if (status !== null && !isCount(status)) return undefined;
  return { kind: kind as RealtimeErrorKind, status, reason };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
