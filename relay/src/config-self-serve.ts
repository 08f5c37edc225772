import { describeValue } from '../../server-kit/config-checks.js';

/** The fields that let owners register their websites at run time, with their defaults. */
export interface SelfServeConfig {
  /** Owners register websites at run time with `PUT /api/v1/websites/{id}`, proving ownership with the token. */
  readonly selfServe: boolean;
  /**
   * `id:base64` keys of 32 random bytes: the first encrypts, every one decrypts. Not enumerable on
   * parsed configs, like the tokens.
   */
  readonly encryptionKeys: readonly string[];
  /** Failed proofs of ownership in any rolling hour, all clients together, before only clients without one are checked; one client or website ID gets a tenth (at least 1); see `AttemptLimits`. */
  readonly registrationsPerHour: number;
  /** Registered websites the relay keeps at most (the config's own websites apart). */
  readonly maxWebsites: number;
  /** Where one Node instance without Redis keeps registrations, written atomically; null when the store keeps them. */
  readonly registrationsFile: string | null;
  /** Says in so many words that registrations kept in memory may be lost on a restart: the demo's case. */
  readonly registrationsMayBeLost: boolean;
  /**
   * A header that a trusted reverse proxy in front of the relay sets to the client's address
   * (`x-forwarded-for`, `x-real-ip`), for the per-client registration limit; null (the default)
   * reads the connection's address. Only set it behind such a proxy: a client could write it otherwise.
   */
  readonly clientAddressHeader: string | null;
}

export const SELF_SERVE_DEFAULTS = Object.freeze({
  selfServe: false,
  encryptionKeys: Object.freeze([] as string[]),
  registrationsPerHour: 60,
  maxWebsites: 1_000,
  registrationsFile: null,
  registrationsMayBeLost: false,
  clientAddressHeader: null,
});

export const SELF_SERVE_LIMITS = Object.freeze({ maxEncryptionKeys: 16, maxRegistrationsPerHour: 100_000, maxWebsites: 1_000_000 });

/** An HTTP header name (RFC 9110 token), as the relay reads it: lower case. */
export function readHeaderName(value: unknown, at: string, issues: string[]): string | null | undefined {
  if (value === null) return null;
  if (typeof value === 'string' && /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/.test(value)) return value.toLowerCase();
  issues.push(`${at} must be a header name like "x-forwarded-for" (got ${describeValue(value)})`);
  return undefined;
}

/** A key id: short, so it costs little in every record. */
const KEY_ID_SYNTAX = /^[A-Za-z0-9_-]{1,32}$/;
/** AES-256. */
export const ENCRYPTION_KEY_BYTES = 32;

/** The key list, each `id:base64` of 32 bytes, ids unique; the key's value is never quoted. */
export function readEncryptionKeys(value: unknown, at: string, issues: string[]): readonly string[] | undefined {
  const example = `like ["2026-11:${'A'.repeat(43)}="] (make one with: openssl rand -base64 32)`;
  if (!Array.isArray(value) || value.length > SELF_SERVE_LIMITS.maxEncryptionKeys) {
    issues.push(`${at} must be a list of at most ${SELF_SERVE_LIMITS.maxEncryptionKeys} keys "id:base64", ${example}`);
    return undefined;
  }
  const before = issues.length;
  const ids = new Set<string>();
  value.forEach((entry: unknown, index) => {
    const [id, secret, ...rest] = typeof entry === 'string' ? entry.split(':') : [];
    if (id === undefined || secret === undefined || rest.length > 0 || !KEY_ID_SYNTAX.test(id)) {
      issues.push(`${at}[${index}] must be "id:base64" with an id of 1 to 32 letters, digits, _ or -, ${example}`);
    } else if (decodedLength(secret) !== ENCRYPTION_KEY_BYTES) {
      issues.push(`${at}[${index}] (key "${id}") must be ${ENCRYPTION_KEY_BYTES} random bytes in base64 (44 characters), ${example}`);
    } else if (ids.has(id)) {
      issues.push(`${at}[${index}] repeats the key id "${id}": each key needs its own id, which is stored with every record it encrypts`);
    } else {
      ids.add(id);
    }
  });
  return issues.length > before ? undefined : Object.freeze([...(value as string[])]);
}

/** Bytes of a standard base64 text, or -1 when it is not one. */
function decodedLength(text: string): number {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.length % 4 !== 0) return -1;
  try {
    return atob(text).length;
  } catch {
    return -1;
  }
}

export function readBoolean(value: unknown, at: string, issues: string[]): boolean | undefined {
  if (typeof value === 'boolean') return value;
  issues.push(`${at} must be true or false (got ${describeValue(value)})`);
  return undefined;
}

/** A file path for the registrations, or null. */
export function readRegistrationsFile(value: unknown, at: string, issues: string[]): string | null | undefined {
  if (value === null) return null;
  if (typeof value === 'string' && value.trim() !== '' && value.length <= 1_024 && !value.includes('\0')) return value;
  issues.push(`${at} must be a file path like "./registrations.json" (got ${describeValue(value)})`);
  return undefined;
}

/** What a self-serving config needs beside its own fields: issues for `parseRelayConfig`'s list. */
export function checkSelfServe(
  config: Pick<SelfServeConfig, 'selfServe' | 'encryptionKeys' | 'registrationsFile'> & { readonly store: string },
  label: (field: 'selfServe' | 'encryptionKeys' | 'registrationsFile') => string,
  issues: string[],
): void {
  if (!config.selfServe) return;
  if (config.encryptionKeys.length === 0) {
    issues.push(
      `${label('selfServe')} keeps owners' tokens, encrypted: ${label('encryptionKeys')} must list at least one key "id:base64" of 32 random bytes (openssl rand -base64 32)`,
    );
  }
  if (config.registrationsFile !== null && config.store !== 'memory') {
    issues.push(`${label('registrationsFile')} is for one instance without Redis: with a shared store the registrations live in it`);
  }
}
