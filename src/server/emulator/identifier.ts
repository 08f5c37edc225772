import { MAX_IDENTIFIER_LENGTH } from './input-limits.js';

export type IdentifierCheck = { readonly value: string } | { readonly error: string };

/**
 * Validates an id field (`websiteId`, `visitorId`) wherever it arrives. An empty
 * value is treated as missing, so `?websiteId=` gets the spec's "websiteId is required".
 */
export function checkIdentifier(name: string, value: unknown): IdentifierCheck {
  if (value === undefined || value === '') return { error: `${name} is required` };
  if (typeof value !== 'string') return { error: `${name} must be a string` };
  if (value.length > MAX_IDENTIFIER_LENGTH) return { error: `${name} must be at most ${MAX_IDENTIFIER_LENGTH} characters` };
  return { value };
}
