/**
 * Past its cap, a request's body is still read (and dropped) up to this many bytes in all, so the
 * client finds the connection ready for its next request; a larger one is cut off, and
 * `serveOnNode` closes the connection after the 413 (browsers, curl and Node's `fetch` then open
 * a new one instead of meeting a reset).
 */
export const MAX_DRAINED_BYTES = 8 * 1024 * 1024;

/**
 * A request's or response's body, or `undefined` once it passes `maxBytes` (the rest is not
 * kept), so no peer can make a server hold an unbounded body. Rejects when the body cannot be
 * read (connection dropped).
 */
export async function readCappedBytes(message: Request | Response, maxBytes: number): Promise<Uint8Array | undefined> {
  // A response's surplus is dropped with its connection; a request's is read to its end where that is cheap.
  const drainBytes = isRequest(message) ? MAX_DRAINED_BYTES : 0;
  const declared = Number(message.headers.get('content-length'));
  if (declared > maxBytes && declared > drainBytes) {
    await message.body?.cancel().catch(() => undefined);
    return undefined;
  }
  if (!message.body) return new Uint8Array(0);
  const reader = message.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) return dropRest(reader, size, drainBytes);
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Reads and forgets the rest of a body over its cap, up to `drainBytes` in all; cancels it past them. */
async function dropRest(reader: ReadableStreamDefaultReader<Uint8Array>, read: number, drainBytes: number): Promise<undefined> {
  let size = read;
  while (size <= drainBytes) {
    const { done, value } = await reader.read();
    if (done) return undefined;
    size += value.byteLength;
  }
  await reader.cancel().catch(() => undefined);
  return undefined;
}

function isRequest(message: Request | Response): message is Request {
  return typeof (message as Partial<Request>).method === 'string';
}

/** The body as UTF-8 text (a byte that is not UTF-8 becomes U+FFFD), or `undefined` past `maxBytes`. */
export async function readCappedText(message: Request | Response, maxBytes: number): Promise<string | undefined> {
  const bytes = await readCappedBytes(message, maxBytes);
  return bytes && new TextDecoder().decode(bytes);
}
