/**
 * A strong ETag for a body: the first 64 bits of its SHA-256, through Web Crypto so the
 * handler runs unchanged on edge runtimes. Computed once per upstream answer, not per request.
 */
export async function etagFor(body: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body));
  const hex = [...new Uint8Array(digest, 0, 8)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `"${hex}"`;
}

/**
 * Whether `If-None-Match` names this representation. RFC 9110 §13.1.2: weak comparison
 * (a `W/` prefix is ignored), a comma-separated list, or `*` for any current representation.
 */
export function matchesIfNoneMatch(header: string | null, etag: string): boolean {
  if (header === null) return false;
  const wanted = header.trim();
  if (wanted === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  // Bounded: a header of thousands of tags is someone else's problem, not a reason to loop long.
  return wanted.split(',', 64).some((tag) => opaque(tag) === opaque(etag));
}
