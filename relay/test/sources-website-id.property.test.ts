// @vitest-environment node
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { holds } from '../../test/support/properties.js';
import { isWebsiteId } from '../src/registry/registration-checks.js';
import { SOURCE_DEFINITIONS } from '../src/sources/kinds.js';
import { parseSource } from '../src/sources/parse-source.js';
import type { SourceSettings } from '../src/sources/source.js';
import { namedSourceKind, SITE_FIELD, sourceWebsiteId } from '../src/sources/source-website-id.js';

/**
 * A source's website ID names the site it proves (issue 35 §2): the documented examples, and for
 * any source, an ID of the relay's shape that names its kind, and never one ID for two sites.
 */

function parsed(source: Record<string, unknown>): SourceSettings {
  const read = parseSource(source, 'source');
  if (!('source' in read)) throw new Error(read.issues.join('; '));
  return read.source;
}

describe('sourceWebsiteId', () => {
  it.each([
    [{ kind: 'plausible', siteId: 'shop.example', apiKey: 'k' }, 'plausible:shop.example'],
    [{ kind: 'plausible', base: 'https://plausible.io/', siteId: 'shop.example', apiKey: 'k' }, 'plausible:shop.example'],
    [
      { kind: 'plausible', base: 'https://stats.shop.example', siteId: 'shop.example', apiKey: 'k' },
      'plausible:stats.shop.example/shop.example',
    ],
    [{ kind: 'fathom', siteId: 'ABCDEF', apiKey: 'k' }, 'fathom:ABCDEF'],
    [{ kind: 'umami', websiteId: '7f8e6d5c-4b3a-4921-8f1e-0d9c8b7a6f5e', apiKey: 'k' }, 'umami:7f8e6d5c-4b3a-4921-8f1e-0d9c8b7a6f5e'],
    [
      { kind: 'umami', base: 'https://umami.shop.example/api', websiteId: 'u1', username: 'a', password: 'p' },
      'umami:umami.shop.example/api/u1',
    ],
    [{ kind: 'matomo', base: 'https://matomo.shop.example', siteId: 1, tokenAuth: 'k' }, 'matomo:matomo.shop.example/1'],
    [{ kind: 'matomo', base: 'https://shop.example:8443/matomo/', siteId: '12', tokenAuth: 'k' }, 'matomo:shop.example:8443/matomo/12'],
    [
      { kind: 'plausible', base: 'http://127.0.0.1:8080/sources/plausible', siteId: 'a/b c', apiKey: 'k' },
      'plausible:127.0.0.1:8080/sources/plausible/a%2Fb%20c',
    ],
    [{ kind: 'plausible', base: 'http://localhost', siteId: 's', apiKey: 'k' }, 'plausible:localhost:80/s'],
  ])('%j is %s', (source, id) => {
    expect(sourceWebsiteId(parsed(source))).toBe(id);
    expect(namedSourceKind(id)).toBe(source.kind);
  });

  it('gives none when the base and the site are too long together for a website ID', () => {
    const source = parsed({
      kind: 'plausible',
      base: `https://${'a'.repeat(60)}.example/${'p'.repeat(150)}`,
      siteId: 's'.repeat(60),
      apiKey: 'k',
    });
    expect(sourceWebsiteId(source)).toBeNull();
  });

  it("leaves the contract's IDs alone: an ID is a source's only with a known kind before the colon", () => {
    for (const id of ['small-shop', 'shop:plausible', 'Plausible:x', 'heap:x', 'plausible', ':x']) expect(namedSourceKind(id)).toBeNull();
  });
});

// Small sets, so two draws often share a host, a port, a path or a site, and a path's end and a site's start can trade places.
const aBase = fc.record({
  scheme: fc.constantFrom('https', 'http'),
  host: fc.constantFrom('shop.example', '127.0.0.1', 'plausible.io', 'xn--bcher-kva.example'),
  port: fc.constantFrom('', '80', '443', '8080'),
  path: fc.array(fc.constantFrom('a', 'b', 'a%2Fb', 'v1'), { maxLength: 2 }),
  slash: fc.boolean(),
});
const aSite = fc.oneof(fc.constantFrom('a', 'b', 'a/b', 'b/a', 'a%2Fb', '1', '12'), fc.string({ minLength: 1, maxLength: 6 }));
const aSource = fc.record({
  kind: fc.constantFrom('plausible', 'umami', 'matomo', 'fathom'),
  base: fc.option(aBase, { nil: undefined }),
  site: aSite,
});
/** Two sources, the second taking each part of the first with even odds: near neighbours, where collisions hide. */
const aPair = fc.tuple(aSource, aSource, fc.array(fc.boolean(), { minLength: 8, maxLength: 8 })).map(([first, other, same]) => {
  const base = first.base && other.base && { ...other.base };
  if (base && first.base) {
    const keys = ['scheme', 'host', 'port', 'path', 'slash'] as const;
    keys.forEach((key, index) => {
      if (same[index]) (base as Record<string, unknown>)[key] = first.base![key];
    });
  }
  const second = {
    kind: same[5] ? first.kind : other.kind,
    base: same[6] ? first.base : (base ?? other.base),
    site: same[7] ? first.site : other.site,
  };
  return [first, second] as const;
});

type Drawn = {
  kind: string;
  base: { scheme: string; host: string; port: string; path: string[]; slash: boolean } | undefined;
  site: string;
};

/** The drawn source as an owner sends it, parsed; null when the config's own reader refuses it (a site id a kind does not take). */
function sourceOf(drawn: Drawn): SourceSettings | null {
  const { kind, base, site } = drawn;
  const url = base && `${base.scheme}://${base.host}${base.port ? `:${base.port}` : ''}/${base.path.join('/')}${base.slash ? '/' : ''}`;
  const secrets: Record<string, Record<string, unknown>> = {
    plausible: { apiKey: 'k' },
    umami: { apiKey: 'k' },
    matomo: { tokenAuth: 'k' },
    fathom: { apiKey: 'k' },
  };
  if (kind === 'matomo' && url === undefined) return null;
  const read = parseSource(
    { kind, ...(url === undefined ? {} : { base: url }), [SITE_FIELD[kind as 'plausible']]: site, ...secrets[kind] },
    'source',
  );
  return 'source' in read ? read.source : null;
}

/** What the ID must tell apart: the kind, the site, and the server and path the base names (its default apart). */
function identity(source: SourceSettings): string {
  const site = String((source as unknown as Record<string, unknown>)[SITE_FIELD[source.kind]]);
  if (source.base === SOURCE_DEFINITIONS[source.kind].defaultBase) return JSON.stringify([source.kind, site, 'default']);
  const url = new URL(source.base);
  const port = url.port || (url.protocol === 'http:' ? '80' : '443');
  return JSON.stringify([source.kind, site, url.hostname, port, url.pathname.replace(/\/+$/, '')]);
}

describe('for any source', () => {
  it("the ID is one of the relay's website IDs, names the source's kind, and is the same from the public part a record keeps", () => {
    holds(
      fc.property(aSource, (drawn) => {
        const source = sourceOf(drawn);
        if (source === null) return;
        const id = sourceWebsiteId(source);
        if (id === null) return;
        expect(isWebsiteId(id)).toBe(true);
        expect(namedSourceKind(id)).toBe(source.kind);
        // A record keeps only the public part: its ID is the same.
        expect(sourceWebsiteId({ ...source })).toBe(id);
      }),
    );
  });

  it('two sources share an ID only when they read the same site on the same server and path', () => {
    holds(
      fc.property(aPair, ([first, second]) => {
        const [a, b] = [sourceOf(first), sourceOf(second)];
        if (a === null || b === null) return;
        const [idA, idB] = [sourceWebsiteId(a), sourceWebsiteId(b)];
        if (idA === null || idB === null || idA !== idB) return;
        expect(identity(a)).toBe(identity(b));
      }),
    );
  });
});
