import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startServer, type Tenant, type TestServer } from './helpers.js';

/**
 * SCIM conformance (docs/CONSOLE.md, "Provisioning (SCIM)"): the request sequences Microsoft Entra
 * ID's provisioning service and Okta's send, as their SCIM guides give them (Entra ID: "Develop and
 * plan provisioning for a SCIM endpoint", its request and response examples and its known
 * deviations; Okta: "Okta and SCIM Version 2.0"), replayed in order against the real server; then
 * RFC 7644's filter examples (those of the attributes served; the others are refused with
 * invalidFilter) and its PATCH examples.
 */

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

let server: TestServer;
let acme: Tenant;
let token: string;

async function scim(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown, contentType = 'application/scim+json') {
  const response = await server.app.inject({
    method,
    url: `/scim/v2/acme/${acme.domainId}${path}`,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': contentType } : {}) },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
  expect(response.statusCode, `${method} ${path}: ${response.body}`).toBeLessThan(500);
  return { status: response.statusCode, body: response.body ? response.json() : undefined, headers: response.headers };
}
const filter = (text: string, extra = '') => `?filter=${encodeURIComponent(text)}${extra}`;
const operations = (...Operations: unknown[]) => ({ schemas: [PATCH], Operations });
const stored = async (id: string) =>
  (await server.db.query(`SELECT username, display_name, email, status, blocked_at, external_id FROM users WHERE company_id = 'acme' AND domain_id = $1 AND id = $2`, [acme.domainId, id])).rows[0];

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'reseller');
  token = (await call(server, acme.adminToken, 'POST', `/api/companys/acme/domainNames/${acme.domainId}/scimTokens`, { name: 'conformance' })).body.token;
}, 120_000);
afterAll(() => server?.close());

describe('Microsoft Entra ID provisioning', () => {
  const userName = 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1';
  let userId = '';
  let managerId = '';
  let groupId = '';

  it('checks the user does not exist, creates it (with the enterprise extension), reads it back by id and by userName', async () => {
    const none = await scim('GET', `/Users${filter(`userName eq "${userName}"`)}`);
    expect(none.body).toEqual({ schemas: [LIST], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });
    const created = await scim('POST', '/Users', {
      schemas: [USER, ENTERPRISE],
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName,
      active: true,
      emails: [{ primary: true, type: 'work', value: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com' }],
      meta: { resourceType: 'User' },
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      roles: [],
      [ENTERPRISE]: { employeeNumber: '100009', department: 'Human Resources US' },
    });
    expect(created.status).toBe(201);
    userId = created.body.id;
    expect(created.body).toMatchObject({ userName, active: true, externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef', displayName: 'givenName familyName', meta: { resourceType: 'User' } });
    expect(await stored(userId)).toMatchObject({ username: userName, email: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com', display_name: 'givenName familyName', external_id: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef' });
    expect((await scim('GET', `/Users/${userId}`)).body.id).toBe(userId);
    const found = await scim('GET', `/Users${filter(`userName eq "${userName}"`)}`);
    expect(found.body).toMatchObject({ totalResults: 1, Resources: [{ id: userId, userName }] });
    // Entra ID also matches on the work e-mail and on externalId
    const byMail = await scim('GET', `/Users${filter('emails[type eq "work"].value eq "Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com"')}`);
    expect(byMail.body).toMatchObject({ totalResults: 1, Resources: [{ id: userId }] });
    expect((await scim('GET', `/Users${filter('emails[type eq "home"].value eq "Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com"')}`)).body.totalResults).toBe(0);
    expect((await scim('GET', `/Users${filter('externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"')}`)).body.totalResults).toBe(1);
    expect((await scim('GET', `/Users${filter('userName eq "non-existent user"')}`)).body.totalResults).toBe(0);
  });

  it('updates multi-valued and single-valued attributes with capitalised Replace and Add', async () => {
    const multi = await scim(
      'PATCH',
      `/Users/${userId}`,
      operations({ op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' }, { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' }),
    );
    expect(multi.status).toBe(200);
    expect(multi.body).toMatchObject({ emails: [{ type: 'work', primary: true, value: 'updatedEmail@microsoft.com' }], name: { familyName: 'updatedFamilyName' } });
    const added = await scim('PATCH', `/Users/${userId}`, operations({ op: 'Add', path: 'emails[type eq "work"].value', value: 'again@microsoft.com' }, { op: 'Replace', path: 'title', value: 'tester' }));
    expect(added.body).toMatchObject({ title: 'tester', emails: [{ value: 'again@microsoft.com' }] });
    const single = await scim('PATCH', `/Users/${userId}`, operations({ op: 'Replace', path: 'userName', value: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com' }));
    expect(single.body.userName).toBe('5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com');
    expect(await stored(userId)).toMatchObject({ username: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com', email: 'again@microsoft.com' });
    // a path-less value object with dotted and extension keys
    const pathless = await scim('PATCH', `/Users/${userId}`, operations({ op: 'Replace', value: { displayName: 'Ellen Reckert', 'name.givenName': 'Ellen', [`${ENTERPRISE}:department`]: 'Finance' } }));
    expect(pathless.body).toMatchObject({ displayName: 'Ellen Reckert', name: { givenName: 'Ellen' }, [ENTERPRISE]: { employeeNumber: '100009', department: 'Finance' } });
  });

  it("sets and removes the manager as Entra ID sends it (a list of one { $ref: null, value })", async () => {
    managerId = (await scim('POST', '/Users', { schemas: [USER], userName: 'manager@testuser.com', active: true, emails: [{ primary: true, type: 'work', value: 'manager@testuser.com' }] })).body.id;
    const set = await scim('PATCH', `/Users/${userId}`, operations({ op: 'Add', path: `${ENTERPRISE}:manager`, value: [{ $ref: null, value: managerId }] }));
    expect(set.status).toBe(200);
    expect(set.body[ENTERPRISE].manager).toEqual({ value: managerId });
    const bare = await scim('PATCH', `/Users/${userId}`, operations({ op: 'Replace', path: `${ENTERPRISE}:manager`, value: managerId }));
    expect(bare.body[ENTERPRISE].manager).toEqual({ value: managerId });
    const removed = await scim('PATCH', `/Users/${userId}`, operations({ op: 'Remove', path: `${ENTERPRISE}:manager` }));
    expect(removed.body[ENTERPRISE].manager).toBeUndefined();
  });

  it('creates a group, reads it without members, by displayName; renames it; adds and removes members; checks membership', async () => {
    const created = await scim('POST', '/Groups', {
      schemas: [GROUP, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group'],
      externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
      displayName: 'displayName',
      meta: { resourceType: 'Group' },
    });
    expect(created.status).toBe(201);
    groupId = created.body.id;
    expect(created.body).toMatchObject({ displayName: 'displayName', externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159', members: [] });
    const got = await scim('GET', `/Groups/${groupId}?excludedAttributes=members`);
    expect(got.body.members).toBeUndefined();
    const byName = await scim('GET', `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "displayName"')}`);
    expect(byName.body).toMatchObject({ totalResults: 1, Resources: [{ id: groupId, displayName: 'displayName' }] });
    expect(byName.body.Resources[0].members).toBeUndefined();

    const renamed = await scim('PATCH', `/Groups/${groupId}`, operations({ op: 'Replace', path: 'displayName', value: '1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName' }));
    expect(renamed.body.displayName).toBe('1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName');
    const add = await scim('PATCH', `/Groups/${groupId}`, operations({ op: 'Add', path: 'members', value: [{ $ref: null, value: userId }] }, { op: 'Add', path: 'members', value: [{ $ref: null, value: managerId }] }));
    expect(add.status).toBe(200);
    expect(add.body.members.map((m: { value: string }) => m.value).sort()).toEqual([userId, managerId].sort());
    const member = await scim('GET', `/Groups?excludedAttributes=members&filter=${encodeURIComponent(`id eq "${groupId}" and members eq "${userId}"`)}`);
    expect(member.body.totalResults).toBe(1);
    const remove = await scim('PATCH', `/Groups/${groupId}`, operations({ op: 'Remove', path: 'members', value: [{ $ref: null, value: managerId }] }));
    expect(remove.body.members).toMatchObject([{ value: userId }]);
    const notMember = await scim('GET', `/Groups?excludedAttributes=members&filter=${encodeURIComponent(`id eq "${groupId}" and members eq "${managerId}"`)}`);
    expect(notMember.body.totalResults).toBe(0);
    // removing one that is not a member changes nothing
    expect((await scim('PATCH', `/Groups/${groupId}`, operations({ op: 'Remove', path: 'members', value: [{ $ref: null, value: managerId }] }))).status).toBe(200);
  });

  it('disables the user ("False" as a string, as Entra ID sends it), then deletes user and group', async () => {
    const disabled = await scim('PATCH', `/Users/${userId}`, operations({ op: 'Replace', path: 'active', value: 'False' }));
    expect(disabled.status).toBe(200);
    expect(disabled.body.active).toBe(false);
    expect((await stored(userId)).blocked_at).not.toBeNull();
    const listed = await scim('GET', `/Users${filter(`userName eq "5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com"`)}`);
    expect(listed.body.Resources[0].active).toBe(false);
    expect((await scim('PATCH', `/Users/${userId}`, operations({ op: 'Replace', path: 'active', value: false }))).body.active).toBe(false);

    expect((await scim('DELETE', `/Users/${userId}`)).status).toBe(204);
    expect((await stored(userId)).status).toBe('deleted');
    expect((await scim('GET', `/Users/${userId}`)).status).toBe(404);
    expect((await scim('GET', `/Groups/${groupId}`)).body.members).toEqual([]);
    expect((await scim('DELETE', `/Groups/${groupId}`)).status).toBe(204);
    expect((await scim('GET', `/Groups/${groupId}`)).status).toBe(404);
  });
});

describe('Okta provisioning', () => {
  let userId = '';
  let groupId = '';

  it('imports (lists users and groups), checks, creates and reads a user; PUTs its profile; deactivates and reactivates it', async () => {
    expect((await scim('GET', '/Users?startIndex=1&count=2')).body).toMatchObject({ schemas: [LIST], startIndex: 1 });
    expect((await scim('GET', '/Groups?startIndex=1&count=100')).status).toBe(200);
    const none = await scim('GET', `/Users${filter('userName eq "test.user@okta.local"', '&startIndex=1&count=100')}`);
    expect(none.body.totalResults).toBe(0);
    const created = await scim(
      'POST',
      '/Users',
      {
        schemas: [USER],
        userName: 'test.user@okta.local',
        name: { givenName: 'Test', familyName: 'User' },
        emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
        displayName: 'Test User',
        locale: 'en-US',
        externalId: '00ujl29u0le5T6Aj10h7',
        groups: [],
        password: '1mz050nq',
        active: true,
      },
      'application/json',
    );
    expect(created.status).toBe(201);
    userId = created.body.id;
    expect(created.body).toMatchObject({ userName: 'test.user@okta.local', displayName: 'Test User', locale: 'en-US', active: true, groups: [] });
    expect(created.body.password).toBeUndefined();
    expect((await scim('GET', `/Users/${userId}`)).body.userName).toBe('test.user@okta.local');

    const profile = { ...created.body, name: { givenName: 'Another', familyName: 'User' }, displayName: 'Another User' };
    const put = await scim('PUT', `/Users/${userId}`, profile);
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id: userId, displayName: 'Another User', name: { givenName: 'Another', familyName: 'User' }, locale: 'en-US' });

    const off = await scim('PATCH', `/Users/${userId}`, operations({ op: 'replace', value: { active: false } }));
    expect(off.body.active).toBe(false);
    expect((await stored(userId)).blocked_at).not.toBeNull();
    const on = await scim('PATCH', `/Users/${userId}`, operations({ op: 'replace', value: { active: true } }));
    expect(on.body.active).toBe(true);
    expect((await stored(userId)).blocked_at).toBeNull();
    // Okta's PUT of a deactivated user
    const putOff = await scim('PUT', `/Users/${userId}`, { ...put.body, active: false });
    expect(putOff.body.active).toBe(false);
  });

  it('pushes a group: finds it by displayName, creates it, renames it (replace with its id), adds and removes a member, PUTs it, deletes it', async () => {
    expect((await scim('GET', `/Groups${filter('displayName eq "Test SCIMv2"', '&startIndex=1&count=100')}`)).body.totalResults).toBe(0);
    const created = await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Test SCIMv2', members: [] });
    expect(created.status).toBe(201);
    groupId = created.body.id;
    expect((await scim('GET', `/Groups/${groupId}`)).body).toMatchObject({ id: groupId, displayName: 'Test SCIMv2', members: [] });
    const renamed = await scim('PATCH', `/Groups/${groupId}`, operations({ op: 'replace', value: { id: groupId, displayName: 'Test SCIMv2 renamed' } }));
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: groupId, displayName: 'Test SCIMv2 renamed' });
    const added = await scim('PATCH', `/Groups/${groupId}`, operations({ op: 'add', path: 'members', value: [{ value: userId, display: 'test.user@okta.local' }] }));
    expect(added.body.members).toMatchObject([{ value: userId }]);
    const removed = await scim('PATCH', `/Groups/${groupId}`, operations({ op: 'remove', path: `members[value eq "${userId}"]` }));
    expect(removed.body.members).toEqual([]);
    const put = await scim('PUT', `/Groups/${groupId}`, { schemas: [GROUP], id: groupId, displayName: 'Test SCIMv2', members: [{ value: userId, display: 'test.user@okta.local' }] });
    expect(put.body).toMatchObject({ displayName: 'Test SCIMv2', members: [{ value: userId }] });
    expect((await scim('DELETE', `/Groups/${groupId}`)).status).toBe(204);
    expect((await scim('GET', `/Groups${filter('displayName eq "Test SCIMv2"')}`)).body.totalResults).toBe(0);
  });
});

describe('RFC 7644 examples', () => {
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    for (const [userName, family, email] of [
      ['bjensen', 'Jensen', 'bjensen@example.com'],
      ['jsmith', "O'Malley", 'jsmith@example.org'],
      ['Jane', 'Doe', 'jane@elsewhere.net'],
    ]) {
      const created = await scim('POST', '/Users', { schemas: [USER], userName, name: { familyName: family, givenName: userName }, emails: [{ value: email, type: 'work', primary: true }] });
      expect(created.status).toBe(201);
      ids[userName] = created.body.id;
    }
  });
  const matching = async (text: string) => {
    const answer = await scim('GET', `/Users${filter(`(${text}) and (userName eq "bjensen" or userName eq "jsmith" or userName eq "Jane")`)}&sortBy=userName`);
    expect(answer.status, `${text}: ${JSON.stringify(answer.body)}`).toBe(200);
    return (answer.body.Resources as { userName: string }[]).map((r) => r.userName);
  };

  it('the filter examples it serves', async () => {
    expect(await matching('userName eq "bjensen"')).toEqual(['bjensen']);
    expect(await matching('name.familyName co "O\'Malley"')).toEqual(['jsmith']);
    expect(await matching('userName sw "J"')).toEqual(['Jane', 'jsmith']);
    expect(await matching('urn:ietf:params:scim:schemas:core:2.0:User:userName sw "J"')).toEqual(['Jane', 'jsmith']);
    expect(await matching('meta.lastModified gt "2011-05-13T04:42:34Z"')).toHaveLength(3);
    expect(await matching('meta.lastModified ge "2011-05-13T04:42:34Z"')).toHaveLength(3);
    expect(await matching('meta.lastModified lt "2011-05-13T04:42:34Z"')).toEqual([]);
    expect(await matching('meta.lastModified le "2011-05-13T04:42:34Z"')).toEqual([]);
    expect(await matching('emails co "example.com"')).toEqual(['bjensen']);
    expect(await matching('emails co "example.com" or emails.value co "example.org"')).toEqual(['bjensen', 'jsmith']);
    expect(await matching('not (emails co "example.com" or emails.value co "example.org")')).toEqual(['Jane']);
  });

  it('the filter examples on attributes it does not keep are refused with invalidFilter', async () => {
    for (const text of ['title pr', 'title pr and userType eq "Employee"', 'title pr or userType eq "Intern"', 'schemas eq "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"', 'userType eq "Employee" and (emails co "example.com" or emails.value co "example.org")', 'emails[type eq "work" and value co "@example.com"] or ims[type eq "xmpp" and value co "@foo.com"]']) {
      const answer = await scim('GET', `/Users${filter(text)}`);
      expect(answer.status, text).toBe(400);
      expect(answer.body.scimType, text).toBe('invalidFilter');
    }
  });

  it('the PATCH examples: add members, add without a path, remove one member, remove all then add, replace members, replace inside a multi-valued attribute', async () => {
    const group = (await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Tour Guides' })).body.id;
    const add = await scim('PATCH', `/Groups/${group}`, operations({ op: 'add', path: 'members', value: [{ display: 'Babs Jensen', $ref: `https://example.com/v2/Users/${ids.bjensen}`, value: ids.bjensen }] }));
    expect(add.body.members).toMatchObject([{ value: ids.bjensen }]);
    const more = await scim('PATCH', `/Groups/${group}`, operations({ op: 'add', path: 'members', value: [{ value: ids.jsmith }] }));
    expect(more.body.members).toHaveLength(2);
    const removeOne = await scim('PATCH', `/Groups/${group}`, operations({ op: 'remove', path: `members[value eq "${ids.bjensen}"]` }));
    expect(removeOne.body.members).toMatchObject([{ value: ids.jsmith }]);
    const removeAllThenAdd = await scim('PATCH', `/Groups/${group}`, operations({ op: 'remove', path: 'members' }, { op: 'add', path: 'members', value: [{ value: ids.Jane }, { value: ids.bjensen }] }));
    expect(removeAllThenAdd.status).toBe(200);
    expect(removeAllThenAdd.body.members.map((m: { value: string }) => m.value).sort()).toEqual([ids.Jane, ids.bjensen].sort());
    const replace = await scim('PATCH', `/Groups/${group}`, operations({ op: 'replace', path: 'members', value: [{ display: 'Babs Jensen', value: ids.bjensen }] }));
    expect(replace.body.members).toMatchObject([{ value: ids.bjensen }]);
    const removeAll = await scim('PATCH', `/Groups/${group}`, operations({ op: 'remove', path: 'members' }));
    expect(removeAll.body.members).toEqual([]);

    const user = ids.bjensen;
    const noPath = await scim('PATCH', `/Users/${user}`, operations({ op: 'add', value: { emails: [{ value: 'babs@jensen.org', type: 'home' }], nickName: 'Babs' } }));
    expect(noPath.status).toBe(200);
    expect(noPath.body.nickName).toBe('Babs');
    expect(noPath.body.emails).toEqual(expect.arrayContaining([expect.objectContaining({ value: 'babs@jensen.org', type: 'home' }), expect.objectContaining({ value: 'bjensen@example.com', primary: true })]));
    expect((await stored(user)).email).toBe('bjensen@example.com');
    const address = await scim(
      'PATCH',
      `/Users/${user}`,
      operations(
        { op: 'add', path: 'addresses', value: [{ type: 'work', streetAddress: '911 Universal City Plaza', locality: 'Hollywood', region: 'CA', postalCode: '91608', country: 'US', primary: true }] },
        { op: 'replace', path: 'addresses[type eq "work"].streetAddress', value: '1010 Broadway Ave' },
      ),
    );
    expect(address.body.addresses).toMatchObject([{ type: 'work', streetAddress: '1010 Broadway Ave', locality: 'Hollywood' }]);
    const replaceWork = await scim('PATCH', `/Users/${user}`, operations({ op: 'replace', value: { emails: [{ value: 'bjensen@example.com', type: 'work', primary: true }], nickName: 'Babs' } }));
    expect(replaceWork.body.emails).toEqual([{ value: 'bjensen@example.com', type: 'work', primary: true }]);
    const removeAttribute = await scim('PATCH', `/Users/${user}`, operations({ op: 'remove', path: 'addresses[type eq "work"]' }));
    expect(removeAttribute.body.addresses ?? []).toEqual([]);
  });
});
