/**
 * Record addresses (docs/CONSOLE.md, "Routes"): built for a record in its company and domain, read
 * back into the record and its place, and the same paths the declarations route.
 */
import { describe, expect, it } from 'vitest';
import { registry } from '../registry';
import { isCurrentPlace, linkedPart, memberHref, parseRecordLink, RECORD_LINKS, recordHref, scopeHref } from './recordLink';

const here = { companyId: 'acme', domainId: 'main' };

describe('record addresses', () => {
  it('name the record, its company and its domain', () => {
    expect(recordHref('users', 'u1', here)).toBe('/users/u1?company=acme&domain=main');
    expect(recordHref('groups', 'ops team', here)).toBe('/groups/ops%20team?company=acme&domain=main');
    expect(recordHref('auditEvents', 42, here)).toBe('/audit-log/42?company=acme');
    expect(recordHref('domains', 'prod', here)).toBe('/domains/prod?company=acme');
    expect(recordHref('companies', 'globex', here)).toBe('/companies/globex');
    expect(recordHref('sessions', 's1', here)).toBeUndefined();
    expect(recordHref('users', '', here)).toBeUndefined();
  });

  it('are read back into the record and its place', () => {
    expect(parseRecordLink('users', 'u1', '?company=globex&domain=prod', here)).toEqual({ type: 'users', id: 'u1', companyId: 'globex', domainId: 'prod' });
    // typed by hand without a place: the current one
    expect(parseRecordLink('users', 'u1', '', here)).toEqual({ type: 'users', id: 'u1', companyId: 'acme', domainId: 'main' });
    // another company without a domain: none is guessed (the screen reads that company's primary one)
    expect(parseRecordLink('users', 'u1', '?company=globex', here).domainId).toBe('');
    // only the type's own scope counts
    expect(parseRecordLink('auditEvents', '7', '?company=globex&domain=prod', here)).toEqual({ type: 'auditEvents', id: '7', companyId: 'globex', domainId: '' });
    expect(parseRecordLink('companies', 'globex', '?company=x&domain=y', here)).toEqual({ type: 'companies', id: 'globex', companyId: '', domainId: '' });
  });

  it('name a tab of the screen, and a permission scope of an API', () => {
    expect(recordHref('groups', 'ops', here, { tab: 'members' })).toBe('/groups/ops?company=acme&domain=main&tab=members');
    expect(scopeHref('api 1', 'read:orders', here)).toBe('/apis/api%201?company=acme&domain=main&tab=permission&scope=read%3Aorders');
    expect(linkedPart('?company=acme&domain=main&tab=permission&scope=read%3Aorders')).toEqual({ tab: 'permission', scope: 'read:orders' });
    expect(linkedPart('?company=acme&domain=main')).toEqual({});
    // the place is read as for any record address
    expect(parseRecordLink('apis', 'a1', '?company=globex&domain=prod&tab=permission&scope=x', here)).toEqual({ type: 'apis', id: 'a1', companyId: 'globex', domainId: 'prod' });
  });

  it("name a group member's own record: a user's or a nested group's", () => {
    expect(memberHref({ id: 'u1', type: 'user' }, here)).toBe('/users/u1?company=acme&domain=main');
    expect(memberHref({ id: 'ops', type: 'group' }, here)).toBe('/groups/ops?company=acme&domain=main');
  });

  it('say whether the current place must change first', () => {
    const link = (type: string, search: string) => parseRecordLink(type, 'r1', search, here);
    expect(isCurrentPlace(link('users', '?company=acme&domain=main'), here)).toBe(true);
    expect(isCurrentPlace(link('users', '?company=acme&domain=test'), here)).toBe(false);
    expect(isCurrentPlace(link('users', '?company=globex&domain=main'), here)).toBe(false);
    expect(isCurrentPlace(link('auditEvents', '?company=acme&domain=other'), here)).toBe(true);
    expect(isCurrentPlace(link('auditEvents', '?company=globex'), here)).toBe(false);
    // a domain's and a company's screens carry their place: nothing is switched
    expect(isCurrentPlace(link('domains', '?company=globex'), here)).toBe(true);
    expect(isCurrentPlace(link('companies', ''), here)).toBe(true);
  });

  it('are the paths the declarations route', () => {
    for (const [type, shape] of Object.entries(RECORD_LINKS)) {
      const declaration = registry.find((one) => one.name === type);
      expect(declaration?.routes.record, type).toBe(`${shape.path}:id`);
    }
    // and the spec's routes stay
    const users = registry.find((one) => one.name === 'users')!;
    expect(users.routes.form).toBe('/users-new');
  });
});
