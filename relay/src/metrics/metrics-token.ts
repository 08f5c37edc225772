/** Long enough that guessing it is hopeless: `openssl rand -hex 32` makes 64 characters. */
export const MIN_METRICS_TOKEN_LENGTH = 16;
const MAX_METRICS_TOKEN_LENGTH = 256;

/**
 * The config's `metricsToken`: null (no `/metrics`), or 16 to 256 printable characters without
 * spaces. Never quoted in a message: it is a secret.
 */
export function readMetricsToken(value: unknown, at: string, issues: string[]): string | null | undefined {
  if (value === null) return null;
  const [min, max] = [MIN_METRICS_TOKEN_LENGTH, MAX_METRICS_TOKEN_LENGTH];
  if (typeof value === 'string' && value.length >= min && value.length <= max && /^[\x21-\x7e]+$/.test(value)) return value;
  issues.push(
    `${at} must be ${min} to ${max} printable characters without spaces (make one with: openssl rand -hex 32), or null to turn /metrics off`,
  );
  return undefined;
}

/**
 * Whether `Authorization` is `Bearer <token>`, compared in constant time: both sides are hashed
 * first, so neither the token's length nor its first differing character shows in the time taken.
 * Web Crypto only, for every runtime the relay runs on.
 */
export async function holdsMetricsToken(authorization: string | null, token: string): Promise<boolean> {
  const sent = authorization === null ? null : /^Bearer +(\S+) *$/i.exec(authorization)?.[1];
  const [expected, given] = await Promise.all([digest(token), digest(sent ?? '')]);
  let difference = sent === null || sent === undefined ? 1 : 0;
  for (let index = 0; index < expected.length; index += 1) difference |= expected[index]! ^ given[index]!;
  return difference === 0;
}

async function digest(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}
