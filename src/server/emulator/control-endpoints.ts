import { isPlainObject } from './config.js';
import type { Emulator } from './emulator.js';
import { parseFault } from './faults.js';
import { MAX_SIMULATED_VISITORS } from './input-limits.js';
import { readJsonBody } from './read-body.js';
import { errorAnswer, jsonAnswer } from './responses.js';
import type { Route } from './router.js';

/** Prefix of the control API: outside `/api/`, so it can never collide with a spec path. */
export const CONTROL_PATH_PREFIX = '/__emulator';

const PRIVATE = { visibility: 'private' } as const;

/**
 * The control API for the demo and for browser fault tests. Its answers carry no
 * CORS headers and its POSTs demand `Content-Type: application/json` (which no
 * cross-origin page can send without a preflight this API refuses), so another
 * site open in the same browser can neither read it nor drive it.
 */
export function controlRoutes(emulator: Emulator): ReadonlyMap<string, Route> {
  return new Map<string, Route>([
    [`${CONTROL_PATH_PREFIX}/state`, { visibility: 'private', methods: { GET: () => jsonAnswer(200, emulator.state(), PRIVATE) } }],
    [
      `${CONTROL_PATH_PREFIX}/traffic`,
      {
        visibility: 'private',
        methods: {
          POST: (request) => withJsonBody(request, (body) => setTraffic(emulator, body)),
          DELETE: () => {
            emulator.traffic.stop();
            return jsonAnswer(200, emulator.traffic.state, PRIVATE);
          },
        },
      },
    ],
    [
      `${CONTROL_PATH_PREFIX}/fault`,
      {
        visibility: 'private',
        methods: {
          POST: (request) => withJsonBody(request, (body) => setFault(emulator, body)),
          DELETE: () => {
            emulator.clearFault();
            return jsonAnswer(200, { fault: null }, PRIVATE);
          },
        },
      },
    ],
    [
      `${CONTROL_PATH_PREFIX}/reset`,
      {
        visibility: 'private',
        methods: {
          // JSON only, like the other POSTs: a plain HTML form on any site could otherwise reset it.
          POST: (request) => {
            if (!isJson(request)) return notJsonAnswer();
            emulator.reset();
            return jsonAnswer(200, emulator.state(), PRIVATE);
          },
        },
      },
    ],
  ]);
}

function isJson(request: Request): boolean {
  return /^application\/json\s*(;|$)/i.test(request.headers.get('content-type') ?? '');
}

function notJsonAnswer(): Response {
  return errorAnswer(415, 'Content-Type must be application/json', PRIVATE);
}

async function withJsonBody(request: Request, use: (body: unknown) => Response): Promise<Response> {
  if (!isJson(request)) return notJsonAnswer();
  const body = await readJsonBody(request);
  return body.ok ? use(body.json) : errorAnswer(body.status, body.error, PRIVATE);
}

function setFault(emulator: Emulator, body: unknown): Response {
  const parsed = parseFault(body);
  if ('error' in parsed) return errorAnswer(400, parsed.error, PRIVATE);
  emulator.setFault(parsed.fault);
  return jsonAnswer(200, { fault: emulator.state().fault }, PRIVATE);
}

function setTraffic(emulator: Emulator, body: unknown): Response {
  if (!isPlainObject(body)) return errorAnswer(400, 'Body must be a JSON object like { "target": 40 }', PRIVATE);
  const unknown = Object.keys(body).find((name) => !['target', 'websiteId', 'immediate'].includes(name));
  if (unknown !== undefined) return errorAnswer(400, `${unknown} is not a traffic option (allowed: target, websiteId, immediate)`, PRIVATE);
  const { target, websiteId, immediate } = body;
  if (typeof target !== 'number' || !Number.isInteger(target) || target < 0 || target > MAX_SIMULATED_VISITORS) {
    return errorAnswer(400, `target must be a whole number from 0 to ${MAX_SIMULATED_VISITORS}`, PRIVATE);
  }
  if (websiteId !== undefined && (typeof websiteId !== 'string' || !emulator.config.websites.some((site) => site.id === websiteId))) {
    return errorAnswer(400, 'websiteId must be the id of a configured website', PRIVATE);
  }
  if (immediate !== undefined && typeof immediate !== 'boolean') return errorAnswer(400, 'immediate must be true or false', PRIVATE);

  emulator.traffic.setTarget(target, { websiteId: websiteId as string | undefined, immediate: immediate === true });
  emulator.traffic.start();
  return jsonAnswer(200, emulator.traffic.state, PRIVATE);
}
