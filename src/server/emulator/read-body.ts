import { MAX_BODY_BYTES } from './input-limits.js';

export type BodyRead =
  | { readonly ok: true; readonly json: unknown }
  | { readonly ok: false; readonly status: 400 | 413; readonly error: string };

/**
 * Reads a JSON request body without ever holding more than `maxBytes`: a declared
 * `Content-Length` over the cap is refused unread, and a streamed body is cut off
 * as soon as it passes the cap.
 */
export async function readJsonBody(request: Request, maxBytes = MAX_BODY_BYTES): Promise<BodyRead> {
  const tooLarge = { ok: false, status: 413, error: `Request body must be at most ${maxBytes} bytes` } as const;
  const declaredLength = Number(request.headers.get('content-length') ?? '0');
  if (declaredLength > maxBytes) return tooLarge;

  const bytes = await readAtMost(request, maxBytes);
  if (bytes === 'too-large') return tooLarge;
  if (bytes === 'unreadable') return { ok: false, status: 400, error: 'Request body could not be read' };
  if (bytes.length === 0) return { ok: false, status: 400, error: 'Request body is required: a JSON object' };

  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return { ok: true, json: JSON.parse(text) };
  } catch {
    return { ok: false, status: 400, error: 'Request body must be valid JSON' };
  }
}

async function readAtMost(request: Request, maxBytes: number): Promise<Uint8Array | 'too-large' | 'unreadable'> {
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return 'too-large';
      }
      chunks.push(value);
    }
  } catch {
    return 'unreadable';
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
