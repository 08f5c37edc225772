// @vitest-environment node
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulatorServer } from '../../emulator/src/index.js';
import { relayConfigFromEnvironment } from '../src/environment-overrides.js';
import { createRelay } from '../src/relay.js';
import { captureOutput, templateWorker } from './runtimes/workerd-support.js';

/**
 * The per-client registration limit counts each client apart, not every client as one 'unknown'
 * (issue 31 §1 "Abuse"). With registrationsPerHour 10 a client gets one attempt an hour: a second
 * from the same address is refused (429), a first from another address is not. The Cloudflare
 * template runs in workerd (Miniflare) with `cf-connecting-ip` set as Cloudflare's edge sets it;
 * Cloudflare's edge itself was not run. The Node option reads a trusted proxy's header.
 */
const OWNER = { id: 'address-owner', token: 'tokAddress-SECRET' } as const;
const KEY = `a1:${btoa('a'.repeat(32))}`;

let emulator: Awaited<ReturnType<typeof startEmulatorServer>>;

beforeAll(async () => {
  emulator = await startEmulatorServer({ port: 0, config: { websites: [{ ...OWNER, plan: 'enterprise' }] }, onError: () => undefined });
});

afterAll(async () => {
  await emulator?.close();
});

const settings = () => ({
  LIVE_VISITORS_UPSTREAM: emulator.url,
  LIVE_VISITORS_SELF_SERVE: 'true',
  LIVE_VISITORS_ENCRYPTION_KEYS: KEY,
  LIVE_VISITORS_REGISTRATIONS_PER_HOUR: '10',
  LIVE_VISITORS_REGISTRATIONS_MAY_BE_LOST: 'true',
});

/** A registration attempt with a token the service refuses: counted, then 401, nothing stored. */
function attempt(headers: Record<string, string>): Request {
  return new Request(`http://relay.test/api/v1/websites/${OWNER.id}`, {
    method: 'PUT',
    headers: { authorization: 'Bearer not-the-token', ...headers },
  });
}

async function statusOf(response: Response | Promise<Response>): Promise<number> {
  const answer = await response;
  await answer.arrayBuffer();
  return answer.status;
}

describe('the Cloudflare template (workerd)', () => {
  let miniflare: Miniflare;

  beforeAll(async () => {
    const stdio = captureOutput();
    miniflare = new Miniflare({ ...(await templateWorker(settings())), handleRuntimeStdio: stdio.handleRuntimeStdio });
    await miniflare.ready;
  }, 120_000);

  afterAll(async () => {
    await miniflare?.dispose();
  });

  it('gives each cf-connecting-ip its own attempt limit', async () => {
    const from = async (address: string) => {
      const request = attempt({ 'cf-connecting-ip': address });
      const answer = await miniflare.dispatchFetch(request.url, { method: request.method, headers: Object.fromEntries(request.headers) });
      await answer.arrayBuffer();
      return answer.status;
    };
    expect(await from('203.0.113.1')).toBe(401);
    expect(await from('203.0.113.1')).toBe(429);
    expect(await from('203.0.113.2')).toBe(401);
  });
});

describe('clientAddressHeader on Node (LIVE_VISITORS_CLIENT_ADDRESS_HEADER)', () => {
  it('counts each address a trusted proxy forwards apart, by the right-most entry', async () => {
    const relay = createRelay({
      config: relayConfigFromEnvironment({ ...settings(), LIVE_VISITORS_CLIENT_ADDRESS_HEADER: 'X-Forwarded-For' }),
    });
    // The proxy appends the address it saw; what the client wrote to the left is not believed.
    const from = (forwarded: string) => statusOf(relay(attempt({ 'x-forwarded-for': forwarded })));
    expect(await from('198.51.100.7, 203.0.113.1')).toBe(401);
    expect(await from('198.51.100.8, 203.0.113.1')).toBe(429);
    expect(await from('203.0.113.2')).toBe(401);
  });

  it('is off by default: every request without an address shares one limit', async () => {
    const relay = createRelay({ config: relayConfigFromEnvironment(settings()) });
    const from = (forwarded: string) => statusOf(relay(attempt({ 'x-forwarded-for': forwarded })));
    expect(await from('203.0.113.1')).toBe(401);
    expect(await from('203.0.113.2')).toBe(429);
  });

  it('refuses a value that is no header name, naming the variable', () => {
    expect(() => relayConfigFromEnvironment({ ...settings(), LIVE_VISITORS_CLIENT_ADDRESS_HEADER: 'x forwarded' })).toThrow(
      /clientAddressHeader \(from LIVE_VISITORS_CLIENT_ADDRESS_HEADER\) must be a header name/,
    );
  });
});
