import { readFileSync } from 'node:fs';

/** The element package's version, as npm publishes it: the template's default URL must follow its major. */
export const PACKAGE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/**
 * The loader on jsDelivr at the version's major (`0.1.0` gives `@0`, `2.3.1` gives `@2`): a
 * shop's tag then gets fixes and features of that major, never a breaking release.
 */
export function loaderUrlFor(version: string): string {
  const major = /^(0|[1-9]\d*)\.\d+\.\d+/.exec(version)?.[1];
  if (major === undefined) throw new Error(`"${version}" is not a semantic version`);
  return `https://cdn.jsdelivr.net/npm/live-visitors@${major}/dist/live-visitors-loader.js`;
}

/** The default script URL for the package as it stands. */
export const PUBLISHED_LOADER_URL = loaderUrlFor(PACKAGE_VERSION);
