// @vitest-environment node
import { expect, it } from 'vitest';
import { launchCommand } from '../../test/support/command-process.js';

/**
 * The CLI tests stop a command with SIGTERM and expect its own clean exit (0). The signal must reach
 * the command however late it gets to it: through the `tsx` bin, a second process killed it with
 * SIGKILL after 30 ms and exited 143, which made "the bin … across a stop and a start" flaky under load.
 */
it('delivers SIGTERM to the command itself, even while its event loop is busy', async () => {
  const run = launchCommand('relay/test/support/busy-command.ts', []);
  for (let waited = 0; !run.out().includes('ready') && waited < 15_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
  await new Promise((resolve) => setTimeout(resolve, 300));
  run.child.kill('SIGTERM');
  expect(await run.exited).toBe(0);
  expect(run.out()).toContain('stopped');
});
