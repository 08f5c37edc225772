// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { describeRelay } from '../src/command.js';
import { parseRelayConfig } from '../src/config.js';

/** The relay command's start-up lines, for the configs an operator writes: what they promise must be what the relay does. */
const KEY = `k:${btoa('k'.repeat(32))}`;
const URL = 'http://127.0.0.1:8788';
const lines = (input: object, registered: number | null = null) =>
  describeRelay(URL, parseRelayConfig({ upstream: 'https://analytics.example', ...input }), registered).split('\n');
const line = (all: string[], start: string) => all.find((text) => text.startsWith(start));

describe('the start-up lines', () => {
  it('a relay of configured websites only: their origins, one request per interval, the relay-wide budget', () => {
    const all = lines({
      websites: [{ id: 'shop-a', token: 'tok-a' }],
      allowOrigins: ['https://shop.example'],
      interval: 30,
      hourlyBudget: 500,
    });
    expect(line(all, 'Allowed origins:')).toBe('Allowed origins: https://shop.example');
    expect(line(all, 'Budget:')).toBe(
      'Budget: at most 500 upstream requests an hour for the whole relay; a website takes at most one every 30 s (120 an hour).',
    );
    expect(line(all, 'Registered websites:')).toBeUndefined();
  });

  it('a self-serving relay: how many registrations it found, that each picks its own origins, and their own budget', () => {
    const all = lines(
      { selfServe: true, encryptionKeys: [KEY], registrationsFile: './registrations.json', websites: [{ id: 'shop-a', token: 'tok-a' }] },
      3,
    );
    expect(line(all, 'Registered websites:')).toBe(
      `Registered websites: 3 found in the file ./registrations.json; owners register theirs at ${URL}/ (at most 1000)`,
    );
    expect(line(all, 'Allowed origins:')).toBe(
      "Allowed origins: none (same-origin pages only) for the config's websites; " +
        'each registered website answers the origins its owner chose (any origin when the owner chose none)',
    );
    expect(line(all, 'Budget:')).toBe(
      'Budget: at most 60060 upstream requests an hour for the whole relay; a website takes at most one every 60 s (60 an hour), ' +
        "and a registered website no more than its owner's hourly budget (100 unless the owner set another).",
    );
  });

  it('with a shared store, the budget is the fleet’s and the registrations are in the store', () => {
    const all = lines({ selfServe: true, encryptionKeys: [KEY], store: 'redis://127.0.0.1:6379' }, 0);
    expect(line(all, 'Registered websites:')).toMatch(/^Registered websites: 0 found in the shared store;/);
    expect(line(all, 'Allowed origins:')).toBe(
      'Allowed origins: each registered website answers the origins its owner chose (any origin when the owner chose none)',
    );
    expect(line(all, 'Budget:')).toMatch(/^Budget: at most 60000 upstream requests an hour for the whole relay \(the fleet together\);/);
  });
});
