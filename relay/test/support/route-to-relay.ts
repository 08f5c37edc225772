import type { BrowserContext } from 'playwright-core';

/**
 * Sends `context`'s requests for `publicOrigin` (an https origin, so pages are secure contexts as
 * in production) to the relay harness at `relayUrl`.
 */
export async function routeToRelay(context: BrowserContext, publicOrigin: string, relayUrl: () => string): Promise<void> {
  await context.route(`${publicOrigin}/**`, async (route) => {
    try {
      const response = await route.fetch({ url: route.request().url().replace(publicOrigin, relayUrl()) });
      await route.fulfill({ response });
    } catch {
      // The test ended with the request under way.
    }
  });
}
