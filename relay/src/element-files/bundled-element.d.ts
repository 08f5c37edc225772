/**
 * The element's script-tag files as the relay was built with them: written from the repository's
 * `dist/` by `write-bundled-element.ts` (the relay's build step) as `bundled-element.js`, which git
 * does not keep (null until the element is built: the module written at install). `folder` names the version and a hash of the files, so each build has its own URLs.
 */
declare const bundled: null | {
  /** Like `0.1.0-3f2a9c81d0`: the element's version and the first hex digits of the files' SHA-256. */
  readonly folder: string;
  /** File name (`live-visitors.js`, `live-visitors-lang-de.js`…) to its text. */
  readonly files: Readonly<Record<string, string>>;
};
export default bundled;
