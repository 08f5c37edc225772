import type { PropertyDeclaration } from '@lit/reactive-element';
import { DEFAULT_INTERVAL_SECONDS, DEFAULT_MAX_AGE_SECONDS, DEFAULT_MIN } from './config.js';
import type { Notation } from './messages.js';
import type { WidgetState } from './view-state.js';

/** `interval=""` (an empty CMS setting, say) means the default, not `Number("")`, which is 0. */
const numberOrUnset = (value: string | null) => (value?.trim() ? Number(value) : null);

/**
 * The element's attributes, each written once: its property, its Lit options (attribute name,
 * parser, reflection), its default (`value`, whose type is the property's) and its documentation.
 * The element's `static properties`, its property types and its defaults derive from this table, whose
 * numbers are the configuration's defaults (config.ts); custom-elements-manifest.config.mjs reads it
 * for the manifest, from which the framework typings are generated. Adding an attribute is one row.
 */
export const ATTRIBUTES = {
  /** Identifier of the website whose visitors are counted (required). */
  websiteId: { attribute: 'website-id', value: null as string | null },
  /** API token, sent only as `Authorization: Bearer …`. Leave it out when `apiBase` is a relay that holds it. */
  token: { value: null as string | null },
  /** Where the API lives; requests go to `{apiBase}/api/v1/realtime`. Default: this page's origin. */
  apiBase: { attribute: 'api-base', value: null as string | null },
  /** Seconds between polls (default 60, at least 15). */
  interval: { converter: numberOrUnset, value: DEFAULT_INTERVAL_SECONDS },
  /** Smallest count to show (default 1, at least 1); below it the fallback shows. */
  min: { converter: numberOrUnset, value: DEFAULT_MIN },
  /** Seconds a last good count may still show while fresh data cannot be had (default 600). */
  maxAge: { converter: numberOrUnset, attribute: 'max-age', value: DEFAULT_MAX_AGE_SECONDS },
  /** Template for the plural form "other", with a `{count}` placeholder. */
  text: { value: null as string | null },
  textOne: { attribute: 'text-one', value: null as string | null },
  textTwo: { attribute: 'text-two', value: null as string | null },
  textFew: { attribute: 'text-few', value: null as string | null },
  textMany: { attribute: 'text-many', value: null as string | null },
  /** `standard` (1,234) or `compact` (1.2K), in the element's language. */
  notation: { value: 'standard' as Notation },
  /** `on`: hover, focus or a tap explains the number; `off` removes the explanation. */
  disclosure: { value: 'on' as 'on' | 'off' },
  /** Replaces the built-in explanation; `{time}` stands for when the count was collected (24-hour digits until someone opens an explanation on the page). */
  disclosureText: { attribute: 'disclosure-text', value: null as string | null },
  /** Share of browsers (0 to 0.9) kept from the sentence as an experiment's control group. */
  holdout: { converter: numberOrUnset, value: 0 },
  /**
   * `loading`, `live`, `stale` or `unavailable`: reflected for styling; set by the element.
   * @readonly
   */
  state: { reflect: true, value: 'loading' as WidgetState },
} satisfies Record<string, PropertyDeclaration & { value: unknown }>;

/** The element's attribute properties and their types, as the table gives them. */
export type AttributeValues = { -readonly [Name in keyof typeof ATTRIBUTES]: (typeof ATTRIBUTES)[Name]['value'] };
