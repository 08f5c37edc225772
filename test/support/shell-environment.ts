/**
 * The environment a person's shell would give a command: this one's, without what `npm test` and
 * Vitest add (NODE_ENV=test would build Lit's development variant; npm_* would carry npm's settings).
 */
export function shellEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== 'NODE_ENV' && !/^(VITEST|npm_)/i.test(key)));
}
