import { fathom } from './fathom.js';
import { ga4 } from './ga4.js';
import { matomo } from './matomo.js';
import { plausible } from './plausible.js';
import type { SourceDefinition, SourceKind, SourceSettings } from './source.js';
import { umami } from './umami.js';

/** Every kind of source, by name. */
export const SOURCE_DEFINITIONS: Readonly<Record<SourceKind, SourceDefinition<SourceSettings & { kind: SourceKind }>>> = Object.freeze({
  plausible,
  umami,
  matomo,
  ga4,
  fathom,
} as Record<SourceKind, SourceDefinition<never>>);
