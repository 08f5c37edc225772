import { getJwt } from '@shopify/shopify-api/test-helpers';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { holds } from '../../test/support/properties.js';
import type { RegistrationRequest, Registrations } from '../src/registry/registrations.js';
import { AppSecret } from '../src/shopify-app/app-secret.js';
import { SessionTokenVerifier } from '../src/shopify-app/session-token.js';
import { answerSettings } from '../src/shopify-app/settings-api.js';
import { CLIENT_ID, CLIENT_SECRET } from './support/shopify-oracle.js';

/**
 * The settings API reads an untrusted body: for any body, a JSON error with a 4xx status, or one
 * registration of exactly the two trimmed strings it was given. The registrations here record
 * what reaches them and refuse every token (what they do with one is the registry's own test).
 */
let authorization: string;
beforeAll(async () => {
  authorization = `Bearer ${(await getJwt('demo-shop', CLIENT_ID, CLIENT_SECRET)).token}`;
});

function recording() {
  const registered: RegistrationRequest[] = [];
  const registrations = {
    register: async (request: RegistrationRequest) => {
      registered.push(request);
      return { outcome: 'refused', status: 401, message: 'The service refused this token' } as const;
    },
  } as unknown as Registrations;
  return { registered, registrations };
}

const sessionTokens = new SessionTokenVerifier(CLIENT_ID, new AppSecret(CLIENT_SECRET));
const put = (body: string, registrations: Registrations) =>
  answerSettings(new Request('https://relay.example/shopify/app/settings', { method: 'PUT', headers: { authorization }, body }), {
    sessionTokens,
    registrations,
    liveCount: async () => ({ error: 'none' }),
    // Every run reuses one token: spending it is shopify-app.test.ts's case, the body is this one's.
    spendSessionToken: async () => true,
  });

describe('PUT /shopify/app/settings with any body', () => {
  it('answers a JSON error, or passes exactly one well-formed registration on for the signed shop', async () => {
    const settingsLike = fc.record(
      { websiteId: fc.oneof(fc.string(), fc.integer(), fc.constant(null)), token: fc.oneof(fc.string(), fc.boolean()), extra: fc.string() },
      { requiredKeys: [] },
    );
    const body = fc.oneof(
      fc.string({ maxLength: 300 }),
      settingsLike.map((value) => JSON.stringify(value)),
      fc.json(),
    );
    await holds(
      fc.asyncProperty(body, async (text) => {
        const { registered, registrations } = recording();
        const response = await put(text, registrations);
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
        expect(typeof ((await response.json()) as { error: unknown }).error).toBe('string');
        expect(registered.length).toBeLessThanOrEqual(1);
        for (const request of registered) {
          expect(request.requester).toBe('shop:demo-shop.myshopify.com');
          expect(request.websiteId).toBe(request.websiteId.trim());
          expect(request.token).toBe(request.token.trim());
          expect(request.websiteId && request.token).toBeTruthy();
          expect(Object.keys(request).sort()).toEqual(['requester', 'token', 'websiteId']);
        }
      }),
      300,
    );
  });
});
