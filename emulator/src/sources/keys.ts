/**
 * The credentials the stand-ins accept, as a shop would paste them (docs/relay.md "Sources", the
 * demo's source picker). Stand-ins only: they guard nothing but a local emulator.
 */
export const STAND_IN_KEYS = Object.freeze({
  plausible: 'plausible-stand-in-key',
  umami: 'api_umami-stand-in-key',
  /** Umami's documented first log-in of a fresh self-hosted install. */
  umamiLogin: Object.freeze({ username: 'admin', password: 'umami' }),
  /** A Matomo token_auth is 32 hexadecimal characters. */
  matomo: '0123456789abcdef0123456789abcdef',
  fathom: 'fathom-stand-in-key',
});
