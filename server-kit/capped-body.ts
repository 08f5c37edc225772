/**
 * A request's or response's body as UTF-8 text, or `undefined` once it passes `maxBytes` (the
 * rest is not read), so no peer can make a server hold an unbounded body. Rejects when the body
 * cannot be read (connection dropped).
 */
export async function readCappedText(message: Request | Response, maxBytes: number): Promise<string | undefined> {
  const declared = Number(message.headers.get('content-length'));
  if (declared > maxBytes) {
    await message.body?.cancel().catch(() => undefined);
    return undefined;
  }
  if (!message.body) return '';
  const reader = message.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    text += decoder.decode(value, { stream: true });
  }
}
