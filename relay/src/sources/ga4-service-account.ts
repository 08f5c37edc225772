import { isPlainObject } from '../../../server-kit/config-checks.js';
import { isLoopbackHost } from '../../../server-kit/loopback.js';
import { invalid, type UpstreamFailure } from '../upstream.js';
import { askJson } from './answer.js';
import type { SourceCall } from './source.js';

/**
 * A Google service account, as GA4's source uses it: its JSON key read from the config, the key's
 * every form for redaction, and an access token obtained with it.
 */

/** The fields of a Google service account's JSON key that the relay uses. */
export interface ServiceAccountKey {
  readonly type?: 'service_account';
  readonly client_email: string;
  /** PKCS #8, PEM: `-----BEGIN PRIVATE KEY-----…`. */
  readonly private_key: string;
  /** Where the signed assertion is exchanged for an access token: the key's own, not a constant. */
  readonly token_uri: string;
  readonly private_key_id?: string;
}

/** Read-only access to Analytics data: the least the realtime report needs. */
export const ANALYTICS_READONLY_SCOPE = 'https://www.googleapis.com/auth/analytics.readonly';
/** Google's assertions may live an hour at most. */
const ASSERTION_LIFETIME_S = 3_600;
/** An access token is renewed this long before Google says it expires, so none expires in flight. */
const RENEW_BEFORE_EXPIRY_MS = 60_000;

export interface AccessToken {
  readonly token: string;
  readonly expiresAtMs: number;
}

/** Whether a kept access token may still be sent at `nowMs`. */
export function isUsable(token: AccessToken | undefined, nowMs: number): token is AccessToken {
  return token !== undefined && nowMs < token.expiresAtMs - RENEW_BEFORE_EXPIRY_MS;
}

/**
 * An access token for the service account (RFC 7523's JWT bearer grant, as Google documents it for
 * service accounts): an RS256-signed assertion sent to the key's `token_uri`. Web Crypto only,
 * so it runs on Workers and every other runtime of the relay.
 */
export async function fetchAccessToken(
  key: ServiceAccountKey,
  call: SourceCall,
): Promise<AccessToken | { readonly failure: UpstreamFailure }> {
  const issuedAtS = Math.floor(call.now() / 1000);
  let assertion: string;
  try {
    assertion = await signedAssertion(key, issuedAtS);
  } catch {
    return {
      failure: {
        kind: 'unauthorized',
        status: null,
        retryAfterMs: null,
        reason: "could not be asked: the service account's private_key is not a usable RSA key",
        said: null,
      },
    };
  }
  const answer = await askJson(call.withSecrets(assertion), key.token_uri, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
  });
  if ('failure' in answer) {
    const { failure } = answer;
    // Google's token endpoint says 400 invalid_grant for a revoked or unknown key: that is a credential problem.
    const kind = failure.status === 400 ? 'unauthorized' : failure.kind;
    return { failure: { ...failure, kind, reason: `refused the service account's token request (${failure.reason})` } };
  }
  const { json } = answer;
  const token = isPlainObject(json) ? json.access_token : undefined;
  const expiresIn = isPlainObject(json) ? json.expires_in : undefined;
  if (typeof token !== 'string' || !/^[\x21-\x7e]{1,4096}$/.test(token))
    return invalid(200, 'answered the token request without an access_token');
  // Google says 3599; an absent or odd lifetime is taken as five minutes rather than trusted.
  const lifetimeS = typeof expiresIn === 'number' && expiresIn > 0 && expiresIn <= 86_400 ? expiresIn : 300;
  return { token, expiresAtMs: call.now() + lifetimeS * 1000 };
}

async function signedAssertion(key: ServiceAccountKey, issuedAtS: number): Promise<string> {
  const header = { alg: 'RS256', typ: 'JWT', ...(key.private_key_id ? { kid: key.private_key_id } : {}) };
  const claims = {
    iss: key.client_email,
    scope: ANALYTICS_READONLY_SCOPE,
    aud: key.token_uri,
    iat: issuedAtS,
    exp: issuedAtS + ASSERTION_LIFETIME_S,
  };
  const unsigned = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  const privateKey = await crypto.subtle.importKey(
    'pkcs8',
    pemBytes(key.private_key),
    { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const signature = await crypto.subtle.sign('RSASSA-PKCS1-v1_5', privateKey, new TextEncoder().encode(unsigned));
  return `${unsigned}.${base64url(new Uint8Array(signature))}`;
}

/** The DER bytes of a PEM `PRIVATE KEY` block; throws when there is none. */
function pemBytes(pem: string): Uint8Array<ArrayBuffer> {
  const body = /-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\s\\n]+)-----END PRIVATE KEY-----/.exec(pem)?.[1];
  if (body === undefined) throw new Error('not a PEM private key');
  const binary = atob(body.replace(/\\n|\s/g, ''));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

function base64url(data: string | Uint8Array): string {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  return btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');
}

/** A service account's JSON key (as an object, or as its JSON text from the environment), checked field by field, never quoted. */
export function readServiceAccountKey(value: unknown, at: string, issues: string[]): ServiceAccountKey | undefined {
  let key = value;
  if (typeof value === 'string') {
    try {
      key = JSON.parse(value);
    } catch {
      issues.push(`${at} must be the service account's JSON key (the file Google Cloud downloads), and this text is not JSON`);
      return undefined;
    }
  }
  if (!isPlainObject(key) || key.type !== 'service_account') {
    issues.push(
      `${at} must be a service account's JSON key, with "type": "service_account" (create one under IAM > Service accounts > Keys)`,
    );
    return undefined;
  }
  const before = issues.length;
  const { client_email, private_key, token_uri, private_key_id } = key;
  if (typeof client_email !== 'string' || !/^[^\s@]{1,128}@[^\s@]{1,253}$/.test(client_email))
    issues.push(`${at}.client_email must be the service account's e-mail address`);
  if (typeof private_key !== 'string' || !isPem(private_key))
    issues.push(`${at}.private_key must be the key's PEM "-----BEGIN PRIVATE KEY-----…"`);
  if (!isTokenUri(token_uri)) issues.push(`${at}.token_uri must be an https URL like "https://oauth2.googleapis.com/token"`);
  if (private_key_id !== undefined && (typeof private_key_id !== 'string' || !/^[\w-]{1,128}$/.test(private_key_id))) {
    issues.push(`${at}.private_key_id must be letters and digits`);
  }
  if (issues.length > before) return undefined;
  const parsed = {
    // Kept, so a parsed config parses again (createRelay checks the config it is given).
    type: 'service_account',
    client_email,
    private_key,
    token_uri,
    ...(typeof private_key_id === 'string' ? { private_key_id } : {}),
  } as ServiceAccountKey;
  return Object.freeze(parsed);
}

function isPem(text: string): boolean {
  try {
    return pemBytes(text).length > 100;
  } catch {
    return false;
  }
}

/** https, or http to this machine (a stand-in in tests): the signed assertion must not cross a network in the clear. */
function isTokenUri(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return !url.username && !url.password && (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname)));
  } catch {
    return false;
  }
}

/**
 * The private key as a text could hold it: whole, its base64 without the PEM lines, and each
 * base64 line alone, so the key quoted inside its JSON file (lines joined by a written `\n`)
 * or cut anywhere between lines leaves nothing readable. A short last line (under 16
 * characters) is left out: it could match ordinary words, and alone gives nothing away.
 */
export function privateKeyForms(pem: string): string[] {
  const lines = pem.split(/-----[A-Z ]+-----|\\n|\s/).filter((line) => line.length >= 16);
  return [pem, lines.join(''), ...lines];
}
