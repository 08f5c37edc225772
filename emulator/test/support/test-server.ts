import { type Answer, eventually, toAnswer } from '../../../test/support/network.js';
import { type EmulatorServer, type EmulatorServerOptions, startEmulatorServer } from '../../src/server.js';
import { FakeTime } from './fake-time.js';

export { type Answer, eventually, toAnswer };

export const DEMO = { websiteId: 'demo-shop', token: 'demo-token' } as const;
export const FREE = { websiteId: 'small-shop', token: 'small-shop-token' } as const;

export interface TestServer extends EmulatorServer {
  readonly time: FakeTime;
  /** A request over real HTTP to the server, answered in full. */
  request(path: string, init?: RequestInit): Promise<Answer>;
  realtime(query: string, headers?: HeadersInit): Promise<Answer>;
  postPageview(body: unknown, headers?: HeadersInit): Promise<Answer>;
  control(method: string, path: string, body?: unknown): Promise<Answer>;
}

/** An emulator on a free loopback port, on a fake clock, with the control API on. */
export async function startTestServer(options: Partial<EmulatorServerOptions> = {}): Promise<TestServer> {
  const time = new FakeTime();
  const server = await startEmulatorServer({ port: 0, controls: true, now: time.now, timers: time, onError: () => undefined, ...options });
  const request = async (path: string, init?: RequestInit): Promise<Answer> => {
    const response = await fetch(`${server.url}${path}`, init);
    return toAnswer(response);
  };
  return {
    ...server,
    time,
    request,
    realtime: (query, headers) => request(`/api/v1/realtime${query}`, headers ? { headers } : {}),
    postPageview: (body, headers) =>
      request('/api/v1/pageviews', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    control: (method, path, body) =>
      request(`/__emulator${path}`, {
        method,
        ...(body === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
      }),
  };
}

export function bearer(token: string): HeadersInit {
  return { Authorization: `Bearer ${token}` };
}
