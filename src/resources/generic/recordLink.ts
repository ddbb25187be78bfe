/**
 * Shareable record addresses (docs/CONSOLE.md, "Routes"; docs/DECISIONS.md, "Record links"):
 * `/users/{id}?company={c}&domain={d}` names the record and the place it lives, so a link works in a
 * fresh tab, from a bookmark or a ticket. Written out here rather than read from the declarations:
 * this module loads lazily (../lazyParts), and importing a declaration would cost the first screen;
 * a test checks both agree.
 */
import type { PathContext } from '../../session/session';

/** Where a type's records live: in a domain, in a company, or found by their id alone (companies). */
type Scope = 'domain' | 'company' | 'none';

interface LinkShape {
  /** The path before the id (the declaration's `routes.record` without `:id`). */
  path: string;
  scope: Scope;
  /** Opening it makes that company and domain current (a domain's screen carries its company instead). */
  switches: boolean;
}

export const RECORD_LINKS: Readonly<Record<string, LinkShape>> = {
  users: { path: '/users/', scope: 'domain', switches: true },
  groups: { path: '/groups/', scope: 'domain', switches: true },
  applications: { path: '/applications/', scope: 'domain', switches: true },
  apis: { path: '/apis/', scope: 'domain', switches: true },
  signInEvents: { path: '/sign-in-logs/', scope: 'domain', switches: true },
  auditEvents: { path: '/audit-log/', scope: 'company', switches: true },
  domains: { path: '/domains/', scope: 'company', switches: false },
  companies: { path: '/companies/', scope: 'none', switches: false },
};

/**
 * A record's shareable address in that company and domain; undefined for a type without one.
 * `within` names a place inside its screen: the tab that opens (`tab`, one of the screen's own tabs'
 * ids) and what that tab finds (`scope`: an API's permission scope), read back by `linkedPart`.
 */
export function recordHref(type: string, id: unknown, context: PathContext, within: LinkedPart = {}): string | undefined {
  const shape = RECORD_LINKS[type];
  if (!shape || id === undefined || id === null || id === '') return undefined;
  const query = new URLSearchParams();
  if (shape.scope !== 'none') query.set('company', context.companyId);
  if (shape.scope === 'domain') query.set('domain', context.domainId);
  if (within.tab) query.set('tab', within.tab);
  if (within.scope) query.set('scope', within.scope);
  const search = query.toString();
  return `${shape.path}${encodeURIComponent(String(id))}${search ? `?${search}` : ''}`;
}

/** What a record address names: the record, and the company and domain it is read in. */
export interface ParsedRecordLink extends PathContext {
  type: string;
  id: string;
}

/**
 * The record and place an address names; a company or domain left out of the query is the current
 * one (an address typed by hand). Only the type's own scope counts: a domain named on an audit
 * record's address is ignored.
 */
export function parseRecordLink(type: string, id: string, search: string, current: PathContext): ParsedRecordLink {
  const scope = RECORD_LINKS[type]?.scope ?? 'none';
  const query = new URLSearchParams(search);
  const companyId = scope === 'none' ? '' : query.get('company') || current.companyId;
  const domainId = scope !== 'domain' ? '' : query.get('domain') || (companyId === current.companyId ? current.domainId : '');
  return { type, id, companyId, domainId };
}

/** The address names the current place (nothing to switch): its company, and its domain for a record of a domain. */
export function isCurrentPlace(link: ParsedRecordLink, current: PathContext): boolean {
  const shape = RECORD_LINKS[link.type];
  if (!shape?.switches) return true;
  return link.companyId === current.companyId && (shape.scope !== 'domain' || link.domainId === current.domainId);
}

/** A place inside a record's screen that its address may name (docs/CONSOLE.md, "Routes"). */
export interface LinkedPart {
  /** One of the screen's own tabs (a group's `members`, an API's `permission`). */
  tab?: string;
  /** An API's permission scope, found and marked on its Permission tab. */
  scope?: string;
}

/** The tab and scope an address names (`?…&tab=permission&scope=read:orders`); absent ones are left out. */
export function linkedPart(search: string): LinkedPart {
  const query = new URLSearchParams(search);
  const part: LinkedPart = {};
  const tab = query.get('tab');
  const scope = query.get('scope');
  if (tab) part.tab = tab;
  if (scope) part.scope = scope;
  return part;
}

/** A permission scope's own address: its API's, opening the Permission tab on that scope. */
export const scopeHref = (apiId: string, permission: string, context: PathContext) =>
  recordHref('apis', apiId, context, { tab: 'permission', scope: permission });

/** A group member's address: the user's or the nested group's own. */
export const memberHref = (member: { id: string; type: string }, context: PathContext) =>
  recordHref(member.type === 'group' ? 'groups' : 'users', member.id, context);
