/**
 * The system error code (ECONNREFUSED, ENOTFOUND…) somewhere in an error's causes, or undefined:
 * the one part of an error from a network client that is safe to print, whatever its message holds.
 */
export function errorCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z0-9_]{2,40}$/.test(code)) return code;
    // Node's happy-eyeballs connect reports an AggregateError whose parts carry the code.
    const errors = (current as { errors?: unknown }).errors;
    current = Array.isArray(errors) && errors.length > 0 ? errors[0] : (current as { cause?: unknown }).cause;
  }
  return undefined;
}
