// @vitest-environment node
import { afterAll, beforeAll } from 'vitest';
import { describeRelayContract } from '../../../relay/test/black-box/relay-contract.js';
import { type PluginSite, startPluginSite, wordPressRelayTarget } from './support/plugin-site.js';

// The same black-box contract as the Node relay's (relay/test/black-box.test.ts), against the
// plugin's REST route on a real WordPress with 8 PHP workers.
let site: PluginSite | undefined;
beforeAll(async () => {
  site = await startPluginSite();
});
afterAll(async () => {
  await site?.stop();
});

describeRelayContract(wordPressRelayTarget(() => site!));
