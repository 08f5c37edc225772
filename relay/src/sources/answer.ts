import { invalid, requestUpstream, statusFailure, type UpstreamExchange, type UpstreamFailure } from '../upstream.js';
import type { SourceCall } from './source.js';

/**
 * Counts no website has: the largest a source may report. Far above any shop's live visitors,
 * and well within what every renderer prints exactly.
 */
export const MAX_COUNT = 100_000_000;

/** What to check when the service refuses a source's request, in place of the contract's advice about its token, id and upstream. */
const SOURCE_ADVICE = {
  unauthorized: "check this website's source credentials (the key, and its access to the site)",
  'not-found': "check this website's source site id",
  redirect: "set this website's source base to the final URL, the relay does not follow redirects",
  // Plausible answers 402 for a site locked for want of an active subscription.
  'payment-required': "the service refuses this site on its account's plan (a locked site, a lapsed subscription)",
} as const;

/** The advice for a refusal by its status, or by the kind the contract gives it. */
function sourceAdvice(status: number, kind: string): string | undefined {
  if (status >= 300 && status < 400) return SOURCE_ADVICE.redirect;
  if (status === 402) return SOURCE_ADVICE['payment-required'];
  return SOURCE_ADVICE[kind as 'unauthorized' | 'not-found'];
}

/**
 * One request of a source to its service, asking for JSON (`headers` add the credentials, the
 * body's type), and its answer read as JSON, or the failure it is: no answer, an error status, a
 * page instead of data, a body that is not JSON. Every request of every kind goes through here.
 */
export async function askJson(
  call: SourceCall,
  url: string,
  init: { readonly method?: 'POST'; readonly headers?: Readonly<Record<string, string>>; readonly body?: string } = {},
): Promise<{ readonly json: unknown } | { readonly failure: UpstreamFailure }> {
  return readJsonAnswer(await requestUpstream(call, url, { ...init, headers: { ...init.headers, Accept: 'application/json' } }), call);
}

function readJsonAnswer(exchanged: UpstreamExchange, call: SourceCall): { readonly json: unknown } | { readonly failure: UpstreamFailure } {
  if ('failure' in exchanged) return exchanged;
  const { response, body } = exchanged;
  if (!response.ok) {
    const failure = statusFailure(response, body, call.now(), call.redactor);
    const fix = sourceAdvice(response.status, failure.kind);
    return { failure: fix ? { ...failure, reason: `answered ${response.status}: ${fix}` } : failure };
  }
  // A proxy's or the service's login page answers 200 too: it is no count.
  if (/^\s*</.test(body) || response.headers.get('content-type')?.includes('html')) {
    return invalid(response.status, 'sent an HTML page (a login page?) instead of a count: check base and the credentials');
  }
  try {
    return { json: JSON.parse(body) as unknown };
  } catch {
    return invalid(response.status, 'sent a body that is not JSON');
  }
}

/**
 * A count as the service wrote it: a whole number, or (`digits`) a string of digits, from 0 to
 * `MAX_COUNT`; otherwise why not, in the relay's words.
 */
export function readCount(value: unknown, { digits = false } = {}): number | string {
  const number = digits && typeof value === 'string' && /^\d{1,12}$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number)) return 'no count';
  if (number < 0) return 'a negative count';
  if (!Number.isInteger(number)) return 'a fractional count';
  if (number > MAX_COUNT) return `a count above ${MAX_COUNT.toLocaleString('en')}`;
  return number;
}

/** A count, or the invalid-response failure of a status-200 answer that does not hold one. */
export function countOrFailure(value: unknown, where: string, options?: { digits?: boolean }) {
  const count = readCount(value, options);
  return typeof count === 'number' ? { count } : invalid(200, `sent ${count} in ${where}`);
}
