import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ErrorBody } from '../../../src/contract/errors.js';

/** A `Response` with the spec's error body, `{ "error": message }`, as every emulator error is sent. */
export function errorResponse(c: Context, status: ContentfulStatusCode, message: string, headers?: Record<string, string>): Response {
  return c.json({ error: message } satisfies ErrorBody, status, headers);
}
