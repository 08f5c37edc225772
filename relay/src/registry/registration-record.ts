import { isPlainObject } from '../../../server-kit/config-checks.js';
import { isOrigin } from '../config.js';
import { SHOPIFY_SHOP_SYNTAX } from '../shopify-app/shop-domain.js';
import { readPublicSource } from './registered-source.js';
import type { RegistrationView } from './registrations.js';

/** A token as stored: AES-256-GCM under the key `keyId`, bound to its record. All base64. */
export interface SealedToken {
  readonly keyId: string;
  /** 96 bits, fresh for every write: GCM must never see one IV twice under a key. */
  readonly iv: string;
  /** The ciphertext with its 128-bit tag. */
  readonly sealed: string;
}

/** A registration as a store keeps it: everything an owner sees, and the token encrypted. */
export interface RegistrationRecord extends RegistrationView {
  /**
   * How the record is authenticated. 2 (every record written now): the whole record is the token's
   * additional data, so a field changed in the store makes it not decrypt. 1 (no `format` field,
   * the first format): only the website id is, until `rotate-keys` or a write seals it as 2.
   */
  readonly format: RecordFormat;
  /** The token, or a source's secrets as one JSON text, sealed the same way. */
  readonly token: SealedToken;
  /** When it was written (ms since the epoch), for owners and backups. */
  readonly savedAtMs: number;
}

export type RecordFormat = 1 | 2;
/** The format every write seals. */
export const RECORD_FORMAT: RecordFormat = 2;

/** A record before it is sealed: what the additional data covers, without the token. */
export type UnsealedRecord = Omit<RegistrationRecord, 'format' | 'token'>;

/** Origins one registration may list: a shop has a few domains, not hundreds. */
export const MAX_ALLOWED_ORIGINS = 16;
/** Per-website hourly budgets: from one request an hour to the largest plan's limit. */
export const MAX_WEBSITE_HOURLY_BUDGET = 1_000_000;
/** The Free plan's hourly limit: a registration without one cannot overspend any plan. */
export const DEFAULT_WEBSITE_HOURLY_BUDGET = 100;

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** A 96-bit IV in base64. */
const IV_LENGTH = 16;
/** Ciphertext of a source's secrets (a service account's JSON key is the longest, within the registration body's cap) with its tag, in base64, with room. */
const MAX_SEALED_LENGTH = 32_768;

/**
 * A stored registration, checked: the record of `websiteId` with every field in bounds, or null
 * for anything else (another program's key, a record cut short, one copied under another id).
 * Only this function reads what a store returns.
 */
export function readRegistrationRecord(raw: unknown, websiteId: string): RegistrationRecord | null {
  if (!isPlainObject(raw) || raw.websiteId !== websiteId) return null;
  const { allowOrigins, hourlyBudget, tokenEnding, shop, token, savedAtMs } = raw;
  // Absent in records of the first format.
  const format = raw.format === undefined ? 1 : raw.format;
  if (format !== 1 && format !== RECORD_FORMAT) return null;
  // Absent in records written before sources: the contract's service.
  const source = raw.source === undefined || raw.source === null ? null : readPublicSource(raw.source);
  if (source === null && raw.source !== undefined && raw.source !== null) return null;
  if (!(allowOrigins === null || isOriginList(allowOrigins))) return null;
  if (!Number.isSafeInteger(hourlyBudget) || (hourlyBudget as number) < 1 || (hourlyBudget as number) > MAX_WEBSITE_HOURLY_BUDGET)
    return null;
  if (typeof tokenEnding !== 'string' || tokenEnding.length > 4) return null;
  if (!(shop === null || (typeof shop === 'string' && SHOPIFY_SHOP_SYNTAX.test(shop)))) return null;
  if (!Number.isSafeInteger(savedAtMs)) return null;
  const sealed = readSealedToken(token);
  if (!sealed) return null;
  return {
    format: format as RecordFormat,
    websiteId,
    allowOrigins: allowOrigins === null ? null : Object.freeze([...(allowOrigins as string[])]),
    hourlyBudget: hourlyBudget as number,
    tokenEnding,
    shop: shop as string | null,
    source,
    token: sealed,
    savedAtMs: savedAtMs as number,
  };
}

function readSealedToken(raw: unknown): SealedToken | null {
  if (!isPlainObject(raw)) return null;
  const { keyId, iv, sealed } = raw;
  if (typeof keyId !== 'string' || !KEY_ID.test(keyId)) return null;
  if (typeof iv !== 'string' || iv.length !== IV_LENGTH || !BASE64.test(iv)) return null;
  if (typeof sealed !== 'string' || sealed.length > MAX_SEALED_LENGTH || !BASE64.test(sealed)) return null;
  return { keyId, iv, sealed };
}

/**
 * What a record's token is sealed with as additional data: for format 2 every field that decides
 * where a secret goes or who may read the count (and the rest but the token), in a fixed order, so
 * every instance that reads the same record reaches the same verdict; for format 1 the website id.
 */
export function additionalDataOf(record: UnsealedRecord & { readonly format: RecordFormat }): string {
  return record.format === 1 ? record.websiteId : fieldsText(record, record.format);
}

/** Every field but the token, as one text in a fixed order. */
function fieldsText(record: UnsealedRecord, format: RecordFormat): string {
  const { websiteId, source, allowOrigins, hourlyBudget, shop, tokenEnding, savedAtMs } = record;
  // A source's fields in name order: a store may hand them back in any order.
  const sourceFields =
    source === null
      ? null
      : Object.keys(source)
          .sort()
          .map((field) => [field, source[field]]);
  return JSON.stringify([
    'live-visitors-registration',
    format,
    websiteId,
    sourceFields,
    allowOrigins,
    hourlyBudget,
    shop,
    tokenEnding,
    savedAtMs,
  ]);
}

/** The same record, field for field: an instance that holds one need not decrypt the other again. */
export function isSameRecord(a: RegistrationRecord, b: RegistrationRecord): boolean {
  return (
    fieldsText(a, a.format) === fieldsText(b, b.format) &&
    a.token.keyId === b.token.keyId &&
    a.token.iv === b.token.iv &&
    a.token.sealed === b.token.sealed
  );
}

/** One to `MAX_ALLOWED_ORIGINS` exact `http(s)` origins. */
export function isOriginList(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.length >= 1 && value.length <= MAX_ALLOWED_ORIGINS && value.every(isOrigin);
}

/** The record's fields without its token and format: what sealing it again starts from. */
export function unsealedOf(record: RegistrationRecord): UnsealedRecord {
  return { ...viewOf(record), savedAtMs: record.savedAtMs };
}

/** What an owner may see: the record without its encrypted token. */
export function viewOf(record: RegistrationRecord): RegistrationView {
  const { websiteId, allowOrigins, hourlyBudget, tokenEnding, shop, source } = record;
  return { websiteId, allowOrigins, hourlyBudget, tokenEnding, shop, source };
}
