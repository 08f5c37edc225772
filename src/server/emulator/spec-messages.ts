/**
 * The message texts of spec part 7, verbatim. The spec shows `<token>` in code
 * formatting; the text itself is `Bearer <token>`.
 */
export const SPEC_MESSAGES = Object.freeze({
  unauthorized: 'Missing or invalid authorization header. Expected: Bearer <token>',
  websiteIdRequired: 'websiteId is required',
  websiteNotFound: 'Website not found',
});

/** RFC 6750 challenge sent with every 401, naming the scheme the client should use. */
export function bearerChallenge(invalidToken: boolean): Record<string, string> {
  return { 'WWW-Authenticate': invalidToken ? 'Bearer error="invalid_token"' : 'Bearer' };
}
