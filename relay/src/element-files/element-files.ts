import { FastResponse } from 'srvx';

/** Where the relay serves the element's files: `/element/{folder}/{file}`, the folder naming the build. */
export const ELEMENT_FILES_PATH = '/element/';

/** The element's files as the relay was built with them; see bundled-element.d.ts. */
export interface BundledElement {
  readonly folder: string;
  readonly files: Readonly<Record<string, string>>;
}

/**
 * The element's script-tag files, served from the relay's own origin so a pasted snippet needs no
 * CDN: `live-visitors.js`, its loader, and the lazy and language files it imports from its own
 * folder. Each build has its own folder (version and content hash), so every answer is cached for
 * a year, immutable; any origin may load them (module scripts from another origin need CORS).
 */
export class ElementFiles {
  /** Null when the relay was run from its sources without its build step: it then says so. */
  readonly #bundled: Promise<BundledElement | null>;

  constructor(bundled: Promise<BundledElement | null> = loadBundledElement()) {
    this.#bundled = bundled;
  }

  /** The bundle's path from the relay's root (`element/{folder}/live-visitors.js`, no leading slash), or null without the files. */
  async scriptPath(): Promise<string | null> {
    const bundled = await this.#bundled;
    return bundled && `${ELEMENT_FILES_PATH.slice(1)}${bundled.folder}/live-visitors.js`;
  }

  async answer(pathname: string, request: Request): Promise<Response> {
    const method = request.method.toUpperCase();
    if (method === 'OPTIONS') return new FastResponse(null, { status: 204, headers: { ...CROSS_ORIGIN, Allow: METHODS } });
    if (method !== 'GET' && method !== 'HEAD')
      return plain(405, `Method ${method} is not allowed here. Allowed: ${METHODS}`, { Allow: METHODS });
    const bundled = await this.#bundled;
    if (!bundled) {
      return plain(
        404,
        "This relay was built without the element's files: its operator runs npm run build, or sets scriptUrl to a copy on a CDN",
      );
    }
    const [folder, name, ...rest] = pathname.slice(ELEMENT_FILES_PATH.length).split('/');
    const text = rest.length === 0 && folder === bundled.folder && name !== undefined ? fileOf(bundled, name) : undefined;
    if (text === undefined) {
      // An older build's folder after an upgrade: the page asks again the next time, never caching the miss.
      return plain(
        404,
        `No such file of the element: this relay serves ${ELEMENT_FILES_PATH}${bundled.folder}/live-visitors.js and the files beside it`,
      );
    }
    return new FastResponse(method === 'HEAD' ? null : text, {
      status: 200,
      headers: {
        ...CROSS_ORIGIN,
        'Content-Type': 'text/javascript; charset=utf-8',
        'Cache-Control': 'public, max-age=31536000, immutable',
        'X-Content-Type-Options': 'nosniff',
      },
    });
  }
}

/** Read once, lazily: a module of data the build writes; missing when the relay runs from sources unbuilt. */
export function loadBundledElement(): Promise<BundledElement | null> {
  return import('./bundled-element.js').then(
    (module) => module.default,
    () => null,
  );
}

const METHODS = 'GET, HEAD, OPTIONS';
/** Any page may load the files: they are public, and hold no secret. */
const CROSS_ORIGIN = { 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' };

function fileOf(bundled: BundledElement, name: string): string | undefined {
  return Object.hasOwn(bundled.files, name) ? bundled.files[name] : undefined;
}

function plain(status: number, text: string, headers: Record<string, string> = {}): Response {
  return new FastResponse(`${text}\n`, {
    status,
    headers: { ...CROSS_ORIGIN, ...headers, 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' },
  });
}
