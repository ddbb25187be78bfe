import dns from 'node:dns/promises';
import net from 'node:net';
import { badRequest } from '../errors.js';

/**
 * Every call to an upstream identity provider (discovery, token, userinfo, JWKS, GitHub's user API,
 * SAML metadata) goes through here: an administrator types the address, so without a guard the
 * provider would fetch whatever she names inside its own network (SSRF). Private, loopback,
 * link-local and other special-use addresses are refused unless the operator allows them
 * (ALLOW_PRIVATE_CALLBACKS, as for back-channel logout in server/oauth/provider.ts). The address is
 * checked twice: its name resolved before the call (a readable refusal), and the socket's remote
 * address once connected (a name that resolves differently the second time, DNS rebinding), the
 * way oidc-provider guards its own fetches.
 */

const SPECIAL_USE = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) SPECIAL_USE.addSubnet(prefix, bits, 'ipv4');
for (const [prefix, bits] of [['::', 128], ['::1', 128], ['64:ff9b::', 96], ['100::', 64], ['2001::', 23], ['2001:db8::', 32], ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) {
  SPECIAL_USE.addSubnet(prefix, bits, 'ipv6');
}

export function isSpecialUseAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return SPECIAL_USE.check(mapped, 'ipv4');
  const family = net.isIP(address);
  if (family === 0) return true;
  return SPECIAL_USE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** A refusal a person can read (a 400 page), never a 5xx. */
export const upstreamRefusal = badRequest;

/** Throws a readable 400 when `url` names (or its host resolves to) a special-use address. */
export async function refusePrivateAddress(url: URL): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (net.isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await dns.lookup(host, { all: true })).map((entry) => entry.address);
    } catch {
      throw upstreamRefusal(`The identity provider's address ${url.host} cannot be found.`);
    }
  }
  if (addresses.some(isSpecialUseAddress)) {
    throw upstreamRefusal(`The identity provider's address ${url.host} is a private or local address, which this server does not call (its operator may allow it with ALLOW_PRIVATE_CALLBACKS=1).`);
  }
}

type Dispatcher = { on(event: 'connect', listener: (origin: unknown, targets: object[]) => void): unknown };
let guardedDispatcher: Dispatcher | null | undefined;

/** An undici Agent (fetch's own) that drops a connection whose remote address is special-use. */
function dispatcher(): Dispatcher | null {
  if (guardedDispatcher !== undefined) return guardedDispatcher;
  // fetch's undici is loaded lazily: touching Response loads it and its global dispatcher
  void Response;
  const global = globalThis as Record<symbol, unknown>;
  const Agent = ((global[Symbol.for('undici.globalDispatcher.2')] ?? global[Symbol.for('undici.globalDispatcher.1')]) as { constructor?: new () => Dispatcher } | undefined)?.constructor;
  if (!Agent) return (guardedDispatcher = null);
  const agent = new Agent();
  agent.on('connect', (_origin, targets) => {
    const client = targets[targets.length - 1] as Record<symbol, unknown> | undefined;
    if (!client) return;
    const symbol = Object.getOwnPropertySymbols(client).find((one) => one.description === 'socket');
    const socket = symbol ? (client[symbol] as net.Socket | undefined) : undefined;
    if (socket?.remoteAddress && isSpecialUseAddress(socket.remoteAddress)) socket.destroy(new Error('the address resolves to a private or local address'));
  });
  return (guardedDispatcher = agent);
}

/** The fetch of upstream calls (openid-client's customFetch): guarded unless private addresses are allowed. */
export function upstreamFetch(allowPrivate: boolean): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw upstreamRefusal(`The identity provider's address ${url.href} is not a web address.`);
    if (allowPrivate) return fetch(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(10_000) });
    await refusePrivateAddress(url);
    const guarded = dispatcher();
    return fetch(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(10_000), ...(guarded ? { dispatcher: guarded } : {}) } as RequestInit);
  }) as typeof fetch;
}
