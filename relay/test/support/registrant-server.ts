import { join } from 'node:path';
import { type NodeServer, serveOnNode } from '../../../server-kit/serve.js';
import type { RelayConfigInput } from '../../src/config.js';
import { FileRegistrationStore } from '../../src/registry/file-registration-store.js';
import { RedisRegistrationStore } from '../../src/registry/redis-registration-store.js';
import { publicPart, readRequestedSource, secretPart } from '../../src/registry/registered-source.js';
import type { RegistrationRecord } from '../../src/registry/registration-record.js';
import type { RegistrationStore } from '../../src/registry/registration-store.js';
import { TokenCipher } from '../../src/registry/token-cipher.js';
import { startRelayServer } from '../../src/server.js';

/**
 * The ownership tests' parts (issue 35 §2, §5): a registrant's own "Fathom" on loopback that
 * accepts any key and writes down every request it gets, the relay served over HTTP on a real
 * Redis or a file store, and records left by registrants before website IDs named their proof.
 */

/** What the registrant's server received: path and query, and the Authorization header as sent. */
export interface ReceivedRequest {
  readonly url: string;
  readonly authorization: string | null;
}

export interface RegistrantServer {
  /** The base of a `fathom` source served by it. */
  readonly base: string;
  readonly received: ReceivedRequest[];
  close(): Promise<void>;
}

/** A squatter's Fathom: every key is good, every site has 100,000,000 visitors. */
export const SQUATTED_COUNT = 100_000_000;

export async function startRegistrantServer(): Promise<RegistrantServer> {
  const received: ReceivedRequest[] = [];
  const server: NodeServer = await serveOnNode(
    (request) => {
      const url = new URL(request.url);
      received.push({ url: `${url.pathname}${url.search}`, authorization: request.headers.get('authorization') });
      return Response.json({ total: SQUATTED_COUNT });
    },
    { port: 0, graceMs: 0 },
  );
  return { base: `${server.url}/fathom`, received, close: () => server.close() };
}

export type Backend = 'redis' | 'file';

export interface ServedRelay {
  readonly url: string;
  readonly logs: string[];
  /** A request to the relay as if from `address` (its trusted proxy's `x-forwarded-for`). */
  request(path: string, init?: RequestInit & { from?: string }): Promise<Response>;
  close(): Promise<void>;
}

/**
 * The relay over HTTP as an operator starts it (`startRelayServer`), its registrations in Redis
 * (under `prefix`) or in a file in `folder`, client addresses from `x-forwarded-for`.
 */
export async function serveRelay(
  backend: Backend,
  where: { redisUrl: string; folder: string; name: string },
  config: Partial<RelayConfigInput> & Pick<RelayConfigInput, 'upstream'>,
): Promise<ServedRelay> {
  const logs: string[] = [];
  const stored =
    backend === 'redis' ? { store: where.redisUrl, storePrefix: `${where.name}:` } : { registrationsFile: registrationsPath(where) };
  const server = await startRelayServer({
    port: 0,
    config: { selfServe: true, clientAddressHeader: 'x-forwarded-for', ...stored, ...config },
    log: (line) => logs.push(line),
  });
  return {
    url: server.url,
    logs,
    request: (path, init = {}) => {
      const { from = '198.51.100.1', ...rest } = init;
      const headers = new Headers(rest.headers);
      headers.set('x-forwarded-for', from);
      return fetch(`${server.url}${path}`, { ...rest, headers });
    },
    close: () => server.close(),
  };
}

/** The registration store a relay of `serveRelay` uses, opened beside it (the file store only while that relay is stopped). */
export async function openStore(backend: Backend, where: { redisUrl: string; folder: string; name: string }): Promise<RegistrationStore> {
  return backend === 'redis'
    ? RedisRegistrationStore.connect({ url: where.redisUrl, prefix: `${where.name}:`, log: () => {} })
    : FileRegistrationStore.open(registrationsPath(where), () => {});
}

function registrationsPath(where: { folder: string; name: string }): string {
  return join(where.folder, `${where.name}.json`);
}

/**
 * A record as a registrant could leave it before website IDs named their proof: `websiteId`
 * (any name, `small-shop` say) held by a source of their own, sealed under the relay's key.
 */
export async function squattedRecord(websiteId: string, source: unknown, encryptionKey: string): Promise<RegistrationRecord> {
  const read = readRequestedSource(source);
  if ('message' in read) throw new Error(read.message);
  return {
    websiteId,
    allowOrigins: null,
    hourlyBudget: 100,
    tokenEnding: '',
    shop: null,
    source: publicPart(read.source),
    // Format 1, as records were written then: only the website ID bound to the ciphertext.
    format: 1,
    token: await new TokenCipher([encryptionKey]).sealText(websiteId, secretPart(read.source)),
    savedAtMs: Date.now(),
  };
}
