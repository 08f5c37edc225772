import { describe, expect, it } from 'vitest';
import { nodeHost } from './support/node-host.js';
import { type DeclaredPermissions, PermissionDenied } from './support/permissions.js';
import { PUBLISHED_LOADER_URL } from './support/published-script.js';
import { runTemplate, type ScriptCache } from './support/sandbox.js';
import { readTemplate, tagFields } from './support/template-file.js';

/**
 * The template's own sandboxed code, unmocked, against the documented API contract: each API is
 * this runner's implementation and checks the template's declared permissions; the page is a
 * model window in Node (the Chromium test runs the same code in a real page).
 */
const template = readTemplate();
const LOADER_URL = PUBLISHED_LOADER_URL;
const FILLED = { websiteId: 'demo-shop', selector: '.product-form', apiBase: 'https://relay.example' };

function runTag(values: Record<string, unknown>, options: { host?: ReturnType<typeof nodeHost>; scriptCache?: ScriptCache } = {}) {
  const host = options.host ?? nodeHost();
  const run = runTemplate({
    code: template.code,
    fields: tagFields(template, values),
    permissions: template.permissions,
    host,
    ...(options.scriptCache ? { scriptCache: options.scriptCache } : {}),
  });
  return { host, run };
}

const settledOrNot = (outcome: Promise<string>) => Promise.race([outcome, new Promise((resolve) => setTimeout(resolve, 20, 'pending'))]);

describe('the template run as Tag Manager runs it', () => {
  it('queues the placement, injects the loader once, and succeeds when the loader loads', async () => {
    const { host, run } = runTag({ ...FILLED, min: '3', holdout: '0.2' });
    expect(run.thrown).toBeUndefined();
    expect(host.window.liveVisitors).toEqual([
      {
        selector: '.product-form',
        position: 'after',
        attributes: {
          'website-id': 'demo-shop',
          'api-base': 'https://relay.example',
          min: '3',
          notation: 'standard',
          disclosure: 'on',
          holdout: '0.2',
        },
      },
    ]);
    expect(host.scripts.map((script) => script.url)).toEqual([LOADER_URL]);
    expect(await settledOrNot(run.outcome)).toBe('pending');
    host.scripts[0]?.load();
    expect(await run.outcome).toBe('success');
    expect(run.calls.filter((call) => call.api.startsWith('gtmOn')).map((call) => call.api)).toEqual(['gtmOnSuccess']);
  });

  it('pushes through the push the loader put on the queue, once the loader is there', () => {
    const seen: unknown[] = [];
    const queue = Object.assign([], { push: (...entries: unknown[]) => seen.push(...entries) });
    const { host } = runTag(FILLED, { host: nodeHost({ window: { liveVisitors: queue } }) });
    expect(seen).toHaveLength(1);
    expect(host.window.liveVisitors).toBe(queue);
  });

  it('two tags on one page share the queue and one loader, and both succeed', async () => {
    const host = nodeHost();
    const scriptCache: ScriptCache = new Map();
    const first = runTag(FILLED, { host, scriptCache });
    const second = runTag({ ...FILLED, selector: '.cart-summary', position: 'first' }, { host, scriptCache });
    expect((host.window.liveVisitors as unknown[]).length).toBe(2);
    expect(host.scripts).toHaveLength(1);
    host.scripts[0]?.load();
    expect(await Promise.all([first.run.outcome, second.run.outcome])).toEqual(['success', 'success']);
  });

  it.each([
    [{ ...FILLED, websiteId: '' }, /Website ID field is empty/],
    [{ ...FILLED, websiteId: '   ' }, /Website ID field is empty/],
    [{ ...FILLED, websiteId: undefined }, /Website ID field is empty/],
    [{ ...FILLED, selector: '' }, /selector field is empty/],
    [{ ...FILLED, position: 'inside' }, /position "inside" is not one of before, after, first, last/],
    [{ ...FILLED, scriptUrl: '' }, /may not load ""/],
    [{ ...FILLED, scriptUrl: LOADER_URL.replace('https:', 'http:') }, /may not load/],
    [{ ...FILLED, scriptUrl: 'https://scripts.example.com/live-visitors-loader.js' }, /Injects scripts/],
  ])('%j fails the tag with a console message, and places and loads nothing', async (values, message) => {
    const { host, run } = runTag(values);
    expect(run.thrown).toBeUndefined();
    expect(await run.outcome).toBe('failure');
    expect(host.logs.map((values) => values.join(' '))).toEqual([expect.stringMatching(message)]);
    expect(host.window).toEqual({});
    expect(host.scripts).toEqual([]);
  });

  it('fails the tag when the loader does not load', async () => {
    const { host, run } = runTag(FILLED);
    host.scripts[0]?.fail();
    expect(await run.outcome).toBe('failure');
    expect(host.logs.at(-1)?.join(' ')).toMatch(/did not load/);
  });

  it('passes a token on and warns that it is public, without writing the token to the console', async () => {
    const { host } = runTag({ ...FILLED, token: 'secret-demo-token' });
    expect((host.window.liveVisitors as Array<{ attributes: Record<string, string> }>)[0]?.attributes.token).toBe('secret-demo-token');
    expect(host.logs.map((values) => values.join(' '))).toEqual([expect.stringMatching(/anyone can read it/)]);
    expect(JSON.stringify(host.logs)).not.toContain('secret-demo-token');
  });

  it('writes to the console only in preview and debug mode, as its logging permission says', async () => {
    const { host, run } = runTag({ ...FILLED, websiteId: '' }, { host: nodeHost({ debugMode: false }) });
    expect(await run.outcome).toBe('failure');
    expect(host.logs).toEqual([]);
  });

  it('refuses a field the template does not have', () => {
    expect(() => tagFields(template, { siteId: 'x' })).toThrow(/no field siteId/);
  });
});

describe('the runner enforces the declared permissions (so a template that overreaches fails here)', () => {
  const run = (code: string, permissions: DeclaredPermissions = template.permissions) =>
    runTemplate({ code, fields: {}, permissions, host: nodeHost() });

  it.each([
    ["require('injectScript')('https://scripts.example.com/x.js', data.gtmOnSuccess, data.gtmOnFailure);", /inject_script/],
    ["require('createQueue')('dataLayer');", /access_globals "readwrite" "dataLayer"/],
    ["require('setInWindow')('document.title', 'x', true);", /access_globals "write" "document.title"/],
    ["require('copyFromWindow')('navigator');", /access_globals "read" "navigator"/],
    ["require('callInWindow')('liveVisitors.push', {});", /access_globals "execute" "liveVisitors.push"/],
  ])('%s throws PermissionDenied', (code, message) => {
    const { thrown } = run(code);
    expect(thrown).toBeInstanceOf(PermissionDenied);
    expect((thrown as Error).message).toMatch(message);
  });

  it('the template itself throws without its access_globals permission', () => {
    const withoutGlobals = { ...template.permissions, globals: new Map() };
    const { thrown, calls } = runTemplate({
      code: template.code,
      fields: tagFields(template, FILLED),
      permissions: withoutGlobals,
      host: nodeHost(),
    });
    expect(thrown).toBeInstanceOf(PermissionDenied);
    expect(calls.map((call) => call.api)).not.toContain('injectScript');
  });

  it('logToConsole throws when no logging permission is declared', () => {
    const { logging: _dropped, ...withoutLogging } = template.permissions;
    expect(run("require('logToConsole')('x');", withoutLogging).thrown).toBeInstanceOf(PermissionDenied);
  });

  // Errors thrown inside the template's V8 context are that context's TypeError, not this one's: compared by name.
  it.each([
    ['window.liveVisitors = [];', 'TypeError'],
    ['document.title = "x";', 'TypeError'],
    ['JSON.stringify({});', 'TypeError'],
    ['process.exit(1);', 'ReferenceError'],
    ["require('sendPixel');", 'Error'],
  ])('sandboxed code cannot reach what the sandbox does not offer: %s', (code, name) => {
    expect((run(code).thrown as Error | undefined)?.name).toBe(name);
  });
});
