import { createServer } from 'node:net';

/** A loopback port the system just handed out, closed again for a server (redis-server, nginx…) to take. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  return address.port;
}

/** A response read in full, so tests can look at it more than once. */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The body parsed as JSON, or `undefined` when it is not JSON. */
  readonly json: unknown;
}

export async function toAnswer(response: Response): Promise<Answer> {
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/**
 * Waits for a state a process or request still at work will reach; when it does not come, a busy
 * machine is no excuse for long. Polls until `condition` holds; after `timeoutMs` (a limit for a
 * state that never comes, not a speed requirement: 60 s unless told) it says what it waited for.
 */
export async function eventually(condition: () => boolean | Promise<boolean>, timeoutMs = 60_000, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A loopback port held by a server of the test's own, so a command asked to listen there finds it taken. */
export async function takenPort(): Promise<{ readonly port: number; release(): void }> {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const { port } = blocker.address() as { port: number };
  return { port, release: () => blocker.close() };
}
