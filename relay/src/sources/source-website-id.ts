import { MAX_IDENTIFIER_LENGTH } from '../../../src/contract/request.js';
import { SOURCE_DEFINITIONS } from './kinds.js';
import { SOURCE_KINDS, type SourceKind } from './source.js';

// A source registration's website ID names the site it proves: whoever the service
// lets read that site owns the ID, and no ID of the contract's service can ever be one.

/** The field that names the site at the service, per kind: a source proves ownership of exactly that site. */
export const SITE_FIELD: Readonly<Record<SourceKind, string>> = {
  plausible: 'siteId',
  umami: 'websiteId',
  matomo: 'siteId',
  ga4: 'propertyId',
  fathom: 'siteId',
};

/** What the ID is made of: a source's kind, its base and its site field (a parsed source, or a record's public part). */
export type SourceIdentity = { readonly kind: SourceKind; readonly base?: unknown };

/**
 * The website ID a source registers under: `<kind>:<site>` (`plausible:shop.example`), with the
 * base's host, port and path before the site when the base is not the service's public one
 * (`plausible:stats.shop.example/shop.example`), so two self-hosted instances never share an ID.
 * The site is URL-encoded, so the last `/` always ends the base. Null when the ID would be longer
 * than a website ID may be, or the base is no URL.
 */
export function sourceWebsiteId(source: SourceIdentity): string | null {
  const site = encodeURIComponent(String((source as Record<string, unknown>)[SITE_FIELD[source.kind]]));
  const base = String(source.base);
  const id = base === SOURCE_DEFINITIONS[source.kind].defaultBase ? `${source.kind}:${site}` : baseName(base, source.kind, site);
  return id !== null && id.length <= MAX_IDENTIFIER_LENGTH ? id : null;
}

/** The kind a website ID names when it has a source's form (`plausible:…`); null for an ID of the contract's service. */
export function namedSourceKind(websiteId: string): SourceKind | null {
  const colon = websiteId.indexOf(':');
  const kind = colon === -1 ? '' : websiteId.slice(0, colon);
  return (SOURCE_KINDS as readonly string[]).includes(kind) ? (kind as SourceKind) : null;
}

/** `<kind>:<host>[:port]<path>/<site>`; plain http always names its port, so it never shares a name with https on 443. */
function baseName(base: string, kind: SourceKind, site: string): string | null {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return null;
  }
  const port = url.protocol === 'http:' && url.port === '' ? ':80' : '';
  return `${kind}:${url.host}${port}${url.pathname.replace(/\/+$/, '')}/${site}`;
}
