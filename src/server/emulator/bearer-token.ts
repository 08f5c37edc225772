import { BEARER_TOKEN_SYNTAX } from './config.js';
import { MAX_IDENTIFIER_LENGTH } from './input-limits.js';

// The scheme name is case-insensitive (RFC 9110 §11.1); one or more spaces separate it from the token.
const BEARER_CREDENTIALS = /^bearer +(\S+)$/i;

/**
 * The token of an `Authorization: Bearer <token>` header, or `undefined` when the
 * header is missing or has any other shape (other scheme, no token, spaces or
 * commas inside the token — two Authorization headers arrive joined by a comma).
 */
export function readBearerToken(header: string | null): string | undefined {
  if (header === null) return undefined;
  const token = BEARER_CREDENTIALS.exec(header.trim())?.[1];
  if (token === undefined || token.length > MAX_IDENTIFIER_LENGTH || !BEARER_TOKEN_SYNTAX.test(token)) return undefined;
  return token;
}
