import { promises as dns, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import type { FetchFunction } from '../upstream.js';
import { classifyHost } from './address-class.js';
import { type RefusalLog, refusedAddressError, type SourceAddressPolicy } from './source-address-policy.js';

/** A resolver: every address a host name has now (the system's, through `dns.lookup`, unless a test's fake answers). */
export type Resolve = (hostname: string) => Promise<readonly LookupAddress[]>;

const systemResolve: Resolve = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/**
 * `net.connect`'s `lookup` under the policy: a name the operator did not list connects only when
 * every address it resolves to is public. Checked at connect time, on the addresses the socket
 * then uses, as a name checked earlier may resolve elsewhere now (DNS rebinding). Addresses
 * written in the URL itself never come here: the policy refused them before (none is a public API).
 */
export function sourceAddressLookup(policy: SourceAddressPolicy, refusals: RefusalLog, resolve: Resolve = systemResolve): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (answers) => {
        const inside = policy.isListedHost(hostname) ? undefined : answers.find((answer) => classifyHost(answer.address) !== 'public');
        if (inside !== undefined || answers.length === 0) {
          refusals.refused(`a connection to ${hostname}, which resolves to a ${inside ? classifyHost(inside.address) : 'missing'} address`);
          callback(refusedAddressError() as NodeJS.ErrnoException, '', 0);
          return;
        }
        const family = options.family === 4 || options.family === 6 ? options.family : undefined;
        const usable = family === undefined ? answers : answers.filter((answer) => answer.family === family);
        if (options.all) (callback as unknown as (error: null, addresses: readonly LookupAddress[]) => void)(null, usable);
        else if (usable[0]) callback(null, usable[0].address, usable[0].family);
        else callback(Object.assign(new Error(`${hostname} has no IPv${family} address`), { code: 'ENOTFOUND' }), '', 0);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/** The relay's fetch on Node: undici's, connecting only where the policy allows (see `sourceAddressLookup`). */
export function sourceAddressFetch(policy: SourceAddressPolicy, refusals: RefusalLog, resolve?: Resolve): FetchFunction {
  const dispatcher = new Agent({ connect: { lookup: sourceAddressLookup(policy, refusals, resolve) } });
  return (input, init) => undiciFetch(input, { ...(init as object), dispatcher }) as unknown as Promise<Response>;
}
