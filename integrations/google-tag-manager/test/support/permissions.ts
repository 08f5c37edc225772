/**
 * The permissions a template declares in `___WEB_PERMISSIONS___`, read into plain rules, and the
 * checks Tag Manager documents for each API that needs one. No Node or DOM: the same module runs
 * in the test process and in the Chromium page.
 */

export type GlobalAccess = 'read' | 'write' | 'readwrite' | 'execute';

export interface DeclaredPermissions {
  /** `logging`: `debug` writes only in preview and debug mode, `all` always; absent when not declared. */
  readonly logging?: 'debug' | 'all';
  /** `access_globals`: each key (a dot path) with the access ticked for it. */
  readonly globals: ReadonlyMap<string, { readonly read: boolean; readonly write: boolean; readonly execute: boolean }>;
  /** `inject_script`: URL match patterns. */
  readonly scriptUrls: readonly string[];
  /** Every permission id declared, including ones this runner has no rules for. */
  readonly declared: readonly string[];
}

/** Thrown by an API whose permission the template does not declare, as Tag Manager's sandbox does. */
export class PermissionDenied extends Error {
  override name = 'PermissionDenied';
}

interface TypedValue {
  readonly type: number;
  readonly string?: string;
  readonly boolean?: boolean;
  readonly listItem?: readonly TypedValue[];
  readonly mapKey?: readonly TypedValue[];
  readonly mapValue?: readonly TypedValue[];
}

interface PermissionEntry {
  readonly instance: { readonly key: { readonly publicId: string }; readonly param?: readonly { key: string; value: TypedValue }[] };
}

/** Reads the section's JSON (Tag Manager's typed values: 1 string, 2 list, 3 map, 8 boolean). */
export function readPermissions(json: unknown): DeclaredPermissions {
  if (!Array.isArray(json)) throw new TypeError('___WEB_PERMISSIONS___ must be a JSON array');
  const globals = new Map<string, { read: boolean; write: boolean; execute: boolean }>();
  const scriptUrls: string[] = [];
  const declared: string[] = [];
  let logging: 'debug' | 'all' | undefined;
  for (const entry of json as PermissionEntry[]) {
    const id = entry.instance.key.publicId;
    declared.push(id);
    const param = (name: string) => entry.instance.param?.find((candidate) => candidate.key === name)?.value;
    if (id === 'logging') {
      const environments = param('environments')?.string;
      if (environments !== 'debug' && environments !== 'all')
        throw new TypeError(`logging environments must be debug or all, not ${environments}`);
      logging = environments;
    } else if (id === 'access_globals') {
      for (const item of param('keys')?.listItem ?? []) {
        const map = readMap(item);
        const key = map.get('key')?.string;
        if (!key) throw new TypeError('an access_globals entry has no key');
        globals.set(key, {
          read: map.get('read')?.boolean === true,
          write: map.get('write')?.boolean === true,
          execute: map.get('execute')?.boolean === true,
        });
      }
    } else if (id === 'inject_script') {
      for (const item of param('urls')?.listItem ?? []) {
        if (item.type !== 1 || typeof item.string !== 'string') throw new TypeError('inject_script urls must be strings');
        scriptUrls.push(item.string);
      }
    }
  }
  return { ...(logging ? { logging } : {}), globals, scriptUrls, declared };
}

function readMap(value: TypedValue): Map<string, TypedValue> {
  const keys = value.mapKey ?? [];
  const values = value.mapValue ?? [];
  if (value.type !== 3 || keys.length !== values.length) throw new TypeError('expected a typed map');
  return new Map(keys.map((key, index) => [key.string ?? '', values[index] as TypedValue]));
}

/** `queryPermission(kind, …)` as documented: true when the declared permissions allow it. */
export function isAllowed(permissions: DeclaredPermissions, kind: string, args: readonly unknown[]): boolean {
  switch (kind) {
    case 'inject_script':
      return typeof args[0] === 'string' && permissions.scriptUrls.some((pattern) => urlMatches(pattern, args[0] as string));
    case 'access_globals':
      return typeof args[1] === 'string' && allowsGlobal(permissions, args[0] as GlobalAccess, args[1]);
    case 'logging':
      return permissions.logging !== undefined;
    default:
      return false;
  }
}

/** Throws `PermissionDenied` unless `isAllowed`. */
export function demand(permissions: DeclaredPermissions, kind: string, ...args: unknown[]): void {
  if (!isAllowed(permissions, kind, args)) {
    throw new PermissionDenied(`The template's permissions do not allow ${kind} ${args.map((arg) => JSON.stringify(arg)).join(' ')}`);
  }
}

// A key grants access to itself and to the paths below it (`foo` covers `foo.bar`), never to its parent.
function allowsGlobal(permissions: DeclaredPermissions, access: GlobalAccess, path: string): boolean {
  const parts = path.split('.');
  for (let length = parts.length; length > 0; length -= 1) {
    const rule = permissions.globals.get(parts.slice(0, length).join('.'));
    if (!rule) continue;
    if (access === 'readwrite') return rule.read && rule.write;
    return rule[access] === true;
  }
  return false;
}

/**
 * Tag Manager's URL match patterns as its permission docs describe them: https only, a host that is
 * exact or `*.` plus a domain (which also covers the domain itself), and a path that is exact or
 * ends in `*` (anything after that prefix, query included). Read strictly: a URL with a query or a
 * fragment matches an exact path only if the pattern says so.
 */
export function urlMatches(pattern: string, candidate: string): boolean {
  const split = /^https:\/\/([^/]+)(\/.*)$/.exec(pattern);
  if (!split) return false;
  const [, hostPattern = '', pathPattern = ''] = split;
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' || url.username || url.password || url.port) return false;
  const host = url.hostname;
  const hostMatches = hostPattern.startsWith('*.')
    ? host === hostPattern.slice(2) || host.endsWith(hostPattern.slice(1))
    : host === hostPattern;
  if (!hostMatches) return false;
  const rest = `${url.pathname}${url.search}${url.hash}`;
  return pathPattern.endsWith('*') ? rest.startsWith(pathPattern.slice(0, -1)) : rest === pathPattern;
}
