import { BEARER_TOKEN_SYNTAX, MAX_IDENTIFIER_LENGTH } from '../../../src/contract/request.js';
import { retryAfterSeconds } from '../../../src/contract/retry-after.js';
import rules from '../../../src/contract/rules.json' with { type: 'json' };
import type { SourceSettings } from '../sources/source.js';
import { namedSourceKind, sourceWebsiteId } from '../sources/source-website-id.js';
import { isOriginList, MAX_ALLOWED_ORIGINS, MAX_WEBSITE_HOURLY_BUDGET } from './registration-record.js';
import type { Refusal, RegistrationRequest } from './registrations.js';

// What a registration request must be before anything is asked of anyone, and the refusals in the owner's words.

export const WRONG_TOKEN = 'The analytics service refused this token for this website: copy the API token again from its settings';
export const WEBSITE_ID_SHAPE = `The website ID must be 1 to ${MAX_IDENTIFIER_LENGTH} printable characters without spaces`;
export const TOKEN_SHAPE = `The token must be a Bearer token: 1 to ${MAX_IDENTIFIER_LENGTH} letters, digits and - . _ ~ + / (then optional =)`;

/** A website id as the relay's URLs carry it: printable, without spaces, bounded. */
export function isWebsiteId(value: string): boolean {
  return value.length > 0 && value.length <= MAX_IDENTIFIER_LENGTH && /^[\x21-\x7e]+$/.test(value);
}

export function isToken(value: string): boolean {
  return value.length <= MAX_IDENTIFIER_LENGTH && BEARER_TOKEN_SYNTAX.test(value);
}

export function checkRequest({ websiteId, token, allowOrigins, hourlyBudget, source }: RegistrationRequest): Refusal | null {
  if (!isWebsiteId(websiteId)) return refusal(400, WEBSITE_ID_SHAPE);
  const proof = proofNamed(websiteId, source);
  if (proof) return proof;
  // A source carries its own key, checked with it: the token is then empty.
  if (source === undefined && !isToken(token)) return refusal(400, TOKEN_SHAPE);
  if (allowOrigins !== undefined && allowOrigins !== null && !isOriginList(allowOrigins)) {
    return refusal(
      400,
      `allowOrigins must list 1 to ${MAX_ALLOWED_ORIGINS} origins like "https://shop.example": scheme, host and port only, no path or trailing slash`,
    );
  }
  if (
    hourlyBudget !== undefined &&
    !(Number.isSafeInteger(hourlyBudget) && hourlyBudget >= 1 && hourlyBudget <= MAX_WEBSITE_HOURLY_BUDGET)
  ) {
    return refusal(400, `hourlyBudget must be a whole number of upstream requests from 1 to ${MAX_WEBSITE_HOURLY_BUDGET}`);
  }
  return null;
}

/**
 * Whether the proof offered is the one the website ID names: a source only under the ID its kind
 * and site make, a token only for an ID without a source's form. Null when it is; else the 400.
 */
export function proofNamed(websiteId: string, source: SourceSettings | undefined): Refusal | null {
  if (source === undefined) {
    const kind = namedSourceKind(websiteId);
    if (kind === null) return null;
    return refusal(
      400,
      `The website ID "${websiteId}" names a ${kind} site: register it with its source (POST ${WEBSITES_COLLECTION} with { "source": … }), whose key proves it. A website of the realtime API has an ID that does not start with "${kind}:"`,
    );
  }
  const derived = sourceIdOf(source);
  if (typeof derived !== 'string') return derived;
  if (derived === websiteId) return null;
  return refusal(
    400,
    `This source's website ID is "${derived}" (its kind and site name it), not "${websiteId}": register it under that ID (POST ${WEBSITES_COLLECTION} finds it for you)`,
  );
}

/** The website ID a source registers under, or the 400 when its base and site make none. */
export function sourceIdOf(source: SourceSettings): string | Refusal {
  return (
    sourceWebsiteId(source) ??
    refusal(400, `source.base and the site's id are too long together: a website ID is at most ${MAX_IDENTIFIER_LENGTH} characters`)
  );
}

/** Where a source registers without naming its ID. */
export const WEBSITES_COLLECTION = '/api/v1/websites';

export function configured(websiteId: string): Refusal {
  return refusal(409, `"${websiteId}" is one of the relay's configured websites: only its operator changes it, in the config`);
}

export function storeDown(): Refusal {
  return refusal(503, 'The relay cannot reach its store of registrations; nothing was changed. Try again shortly');
}

/** A refusal; with a wait (ms from now), its `Retry-After` as the relay sends every one: 1 s to an hour. */
export function refusal(status: Refusal['status'], message: string, retryAfterMs?: number): Refusal {
  return retryAfterMs === undefined
    ? { outcome: 'refused', status, message }
    : { outcome: 'refused', status, message, retryAfterSeconds: retryAfterSeconds(retryAfterMs, 0, rules.relayMaxRetryAfterSeconds) };
}
