// Runtime-neutral (no node: import): the relay's environment overrides run on edge runtimes too.

/**
 * Where `JSON.parse` stopped, as " (near character 12)", or "" when its message does not say:
 * only the position, never the parser's message, which may quote the text (and its tokens).
 */
export function nearPosition(error: unknown): string {
  const position = /position (\d+)/.exec(error instanceof Error ? error.message : '')?.[1];
  return position ? ` (near character ${position})` : '';
}
