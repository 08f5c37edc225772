/**
 * A request's or response's body, or `undefined` once it passes `maxBytes` (the rest is not
 * read), so no peer can make a server hold an unbounded body. Rejects when the body cannot be
 * read (connection dropped).
 */
export async function readCappedBytes(message: Request | Response, maxBytes: number): Promise<Uint8Array | undefined> {
  const declared = Number(message.headers.get('content-length'));
  if (declared > maxBytes) {
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
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
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

/** The body as UTF-8 text (a byte that is not UTF-8 becomes U+FFFD), or `undefined` past `maxBytes`. */
export async function readCappedText(message: Request | Response, maxBytes: number): Promise<string | undefined> {
  const bytes = await readCappedBytes(message, maxBytes);
  return bytes && new TextDecoder().decode(bytes);
}
