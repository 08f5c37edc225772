// @vitest-environment node
import { serveOnNode } from '../../server-kit/serve.js';
import { createRelay } from '../src/relay.js';
import { RELAYED } from './black-box/recording-upstream.js';
import { describeRelayContract } from './black-box/relay-contract.js';
import type { RelayTarget } from './black-box/relay-target.js';

/** The Node relay as the black-box contract sees it: a real server, on real time, over real HTTP. */
const nodeRelay: RelayTarget = {
  name: 'Node relay',
  quotesServiceWords: true,
  async start({ upstream, interval, maxStale, hourlyBudget }) {
    const logs: string[] = [];
    const relay = createRelay({
      config: { upstream: upstream.url, websites: [{ id: RELAYED.id, token: RELAYED.token }], interval, maxStale, hourlyBudget },
      log: (line) => logs.push(line),
    });
    const server = await serveOnNode(relay, { port: 0, graceMs: 0 });
    return {
      realtimeUrl: `${server.url.replace(/\/$/, '')}/api/v1/realtime`,
      logs: async () => logs.join('\n'),
      close: () => server.close(),
    };
  },
};

describeRelayContract(nodeRelay);
