import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BEARER_TOKEN_SYNTAX } from '../src/contract/request.js';
import { serviceMessage } from '../src/contract/service-message.js';
import { holds } from './support/properties.js';

/** Tokens of the only shape a Bearer header carries (RFC 6750 b64token). */
const token = fc.stringMatching(/^[A-Za-z0-9\-._~+/]{6,40}=*$/).filter((value) => BEARER_TOKEN_SYNTAX.test(value));

/** Error text from a service that echoes the token anywhere, plain or URL-encoded, possibly many times, in a long text. */
const echoing = (secret: string) =>
  fc
    .array(
      fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom(secret, encodeURIComponent(secret), '\n', '"', '\u0000', ' '.repeat(150))),
      {
        maxLength: 10,
      },
    )
    .map((pieces) => pieces.join(''));

describe("the service's words in a message, for any error body", () => {
  it('never contain the token, plain or URL-encoded, whatever the body, its type and where it is cut', () => {
    holds(
      fc.property(
        token.chain((secret) =>
          fc.tuple(
            fc.constant(secret),
            echoing(secret).chain((text) =>
              fc.constantFrom(
                { body: JSON.stringify({ error: text }), type: 'application/json' },
                { body: JSON.stringify({ message: text }), type: 'application/json' },
                { body: text, type: 'text/plain; charset=utf-8' },
              ),
            ),
          ),
        ),
        ([secret, { body, type }]) => {
          const said = serviceMessage(body, type, [secret]);
          if (said === null) return;
          expect(said).not.toContain(secret);
          expect(said).not.toContain(encodeURIComponent(secret));
          expect(said.length).toBeLessThanOrEqual(201);
          // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
          expect(said).not.toMatch(/[\x00-\x1f\x7f-\x9f"]/);
        },
      ),
    );
  });

  it('never throw, whatever the body and its type', () => {
    holds(
      fc.property(fc.oneof(fc.string(), fc.json()), fc.option(fc.string()), (body, type) => {
        const said = serviceMessage(body, type, ['tok_1']);
        expect(said === null || typeof said === 'string').toBe(true);
      }),
    );
  });
});
