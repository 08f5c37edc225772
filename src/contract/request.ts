import { SPEC_MESSAGES } from './errors.js';
import rules from './rules.json' with { type: 'json' };

/** The service's one operation, so the widget talks to a relay exactly as it would to the service. */
export const REALTIME_PATH = rules.realtimePath;

/** Longest website id or token the emulator and the relay accept anywhere (config, query, header). */
export const MAX_IDENTIFIER_LENGTH = rules.maxIdentifierLength;

/**
 * RFC 6750 `b64token`: the only token shape a `Bearer` header can carry (and no header injection).
 * Marked pure so the browser bundle, which never checks a token's shape, drops it.
 */
export const BEARER_TOKEN_SYNTAX = /* @__PURE__ */ new RegExp(rules.bearerTokenSyntax);

/** `{apiBase}/api/v1/realtime?websiteId=…`: the token never goes into a URL. */
export function realtimeUrl(apiBase: string, websiteId: string): string {
  return `${apiBase}${REALTIME_PATH}?${new URLSearchParams({ websiteId })}`;
}

export type WebsiteIdParameter = { readonly value: string } | { readonly error: string };

/**
 * The `websiteId` of a request, as the service reads it: given once, and an empty value counts
 * as missing, so `?websiteId=` gets the spec's "websiteId is required".
 */
export function readWebsiteIdParameter(parameters: URLSearchParams): WebsiteIdParameter {
  const values = parameters.getAll('websiteId');
  if (values.length > 1) return { error: rules.messageWebsiteIdRepeated };
  const value = values[0];
  if (!value) return { error: SPEC_MESSAGES.websiteIdRequired };
  if (value.length > MAX_IDENTIFIER_LENGTH) return { error: `websiteId must be at most ${MAX_IDENTIFIER_LENGTH} characters` };
  return { value };
}
