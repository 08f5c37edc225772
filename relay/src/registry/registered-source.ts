import { isPlainObject } from '../../../server-kit/config-checks.js';
import { SOURCE_DEFINITIONS } from '../sources/kinds.js';
import { parseSource } from '../sources/parse-source.js';
import { SOURCE_KINDS, type SourceKind, type SourceSettings } from '../sources/source.js';
import { SITE_FIELD } from '../sources/source-website-id.js';

// A registered website's source: read from a registration the same way the config reads
// one, split into what its owner may see and the secrets, which are sealed like a token.

/** What a record and its owner see of a source: its kind and every field but the secrets. */
export type PublicSource = Readonly<Record<string, string | number>> & { readonly kind: SourceKind };

/** The secret an owner can send as `Authorization: Bearer` to remove a registration (GA4's JSON key cannot be one). */
const BEARER_SECRET: Readonly<Record<SourceKind, string | null>> = {
  plausible: 'apiKey',
  umami: 'apiKey',
  matomo: 'tokenAuth',
  ga4: null,
  fathom: 'apiKey',
};

/** Longest text a public field of a stored source may hold: a base URL, a site id. */
const MAX_PUBLIC_FIELD_LENGTH = 2_048;

/**
 * A source sent with a registration (the API's body, the Shopify app's settings), checked by the
 * config's own `parseSource`, or the refusal's message. Only literal secrets: `{ "env": … }` names
 * the relay's environment, which is its operator's, never a registering owner's.
 */
export function readRequestedSource(value: unknown): { readonly source: SourceSettings } | { readonly message: string } {
  if (isPlainObject(value) && typeof value.kind === 'string' && Object.hasOwn(SOURCE_DEFINITIONS, value.kind)) {
    const named = SOURCE_DEFINITIONS[value.kind as SourceKind].secretFields.filter(
      (field) => isPlainObject(value[field]) && Object.hasOwn(value[field] as object, 'env'),
    );
    if (named.length > 0) {
      return {
        message: `source.${named[0]} must be the secret itself: { "env": … } reads the relay's own environment, which only its operator's config may name`,
      };
    }
  }
  // Without an environment parseSource refuses { env } too; the check above only says it in the owner's words.
  const parsed = parseSource(value, 'source');
  return 'source' in parsed ? parsed : { message: parsed.issues.slice(0, 3).join('; ') };
}

/** The source without its secrets (they are not enumerable on a parsed source). */
export function publicPart(source: SourceSettings): PublicSource {
  return Object.freeze({ ...source }) as unknown as PublicSource;
}

/** The source's secrets as one text, to be sealed as a token is. */
export function secretPart(source: SourceSettings): string {
  const fields = source as unknown as Record<string, unknown>;
  const secrets: Record<string, unknown> = {};
  for (const field of SOURCE_DEFINITIONS[source.kind].secretFields) if (fields[field] !== undefined) secrets[field] = fields[field];
  return JSON.stringify(secrets);
}

/** The source again from a record's public part and its opened secrets; null when they no longer make one. */
export function joinedSource(publicSource: PublicSource, secrets: string): SourceSettings | null {
  let parsedSecrets: unknown;
  try {
    parsedSecrets = JSON.parse(secrets);
  } catch {
    return null;
  }
  if (!isPlainObject(parsedSecrets)) return null;
  const parsed = parseSource({ ...publicSource, ...parsedSecrets }, 'source');
  return 'source' in parsed ? parsed.source : null;
}

/** A stored source's public part, checked: a known kind and short strings or numbers only; null for anything else. */
export function readPublicSource(raw: unknown): PublicSource | null {
  if (!isPlainObject(raw) || typeof raw.kind !== 'string' || !(SOURCE_KINDS as readonly string[]).includes(raw.kind)) return null;
  const definition = SOURCE_DEFINITIONS[raw.kind as SourceKind];
  const allowed = ['kind', 'base', 'hourlyBudget', ...definition.fields.filter((field) => !definition.secretFields.includes(field))];
  for (const [field, value] of Object.entries(raw)) {
    if (!allowed.includes(field)) return null;
    if (!(typeof value === 'number' || (typeof value === 'string' && value.length <= MAX_PUBLIC_FIELD_LENGTH))) return null;
  }
  return Object.freeze({ ...raw }) as PublicSource;
}

/** Whether two sources read the same site of the same service: only then may one registration replace the other. */
export function isSameSite(a: PublicSource, b: PublicSource): boolean {
  const field = SITE_FIELD[a.kind];
  return a.kind === b.kind && a.base === b.base && String(a[field]) === String(b[field]);
}

/** The site a source reads, in words for the owner: `plausible site "shop.example"`. */
export function describeSite(source: PublicSource): string {
  return `${source.kind} site "${String(source[SITE_FIELD[source.kind]])}"`;
}

/** What the owner sees of the secret: an API key's last four characters; nothing of a password or a JSON key. */
export function secretEnding(source: SourceSettings): string {
  const field = BEARER_SECRET[source.kind];
  const key = field === null ? undefined : (source as unknown as Record<string, unknown>)[field];
  return typeof key === 'string' ? key.slice(-4) : '';
}

/** The stored source with `key` in place of its API key, to ask the service whether it accepts that key now; null when the kind has none. */
export function withBearerKey(source: SourceSettings, key: string): SourceSettings | null {
  const field = BEARER_SECRET[source.kind];
  if (field === null || (source as unknown as Record<string, unknown>)[field] === undefined) return null;
  const parsed = parseSource({ ...source, ...JSON.parse(secretPart(source)), [field]: key }, 'source');
  return 'source' in parsed ? parsed.source : null;
}

/** Every secret of the source as text (a JSON key's private key among them), for comparing with what an owner sends. */
export function secretTexts(source: SourceSettings): readonly string[] {
  const fields = source as unknown as Record<string, unknown>;
  return SOURCE_DEFINITIONS[source.kind].secretFields
    .map((field) => fields[field])
    .filter((value): value is string => typeof value === 'string');
}
