import { ENTERPRISE_SCHEMA, GROUP_SCHEMA, LIST_SCHEMA, USER_SCHEMA } from './common.js';
import { notFound } from './errors.js';
import { MAX_RESULTS } from './filter.js';

/**
 * What the server says about itself (RFC 7644 "Service Provider Configuration Endpoints"):
 * /ServiceProviderConfig, /ResourceTypes and /Schemas, with the bounds it keeps.
 */

export const MAX_BULK_OPERATIONS = 100;
export const MAX_PAYLOAD_BYTES = 1024 * 1024;

type Attribute = Record<string, unknown>;
const attr = (name: string, extra: Attribute = {}): Attribute => ({
  name,
  type: 'string',
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});
const complex = (name: string, subAttributes: Attribute[], extra: Attribute = {}) => attr(name, { type: 'complex', subAttributes, ...extra });
const multi = (name: string, subAttributes: Attribute[], extra: Attribute = {}) => complex(name, subAttributes, { multiValued: true, ...extra });
const typed = [attr('value'), attr('display'), attr('type'), attr('primary', { type: 'boolean' })];

const USER_ATTRIBUTES = [
  attr('userName', { required: true, uniqueness: 'server' }),
  complex('name', ['formatted', 'familyName', 'givenName', 'middleName', 'honorificPrefix', 'honorificSuffix'].map((name) => attr(name))),
  attr('displayName'),
  attr('nickName'),
  attr('profileUrl', { type: 'reference', referenceTypes: ['external'] }),
  attr('title'),
  attr('userType'),
  attr('preferredLanguage'),
  attr('locale'),
  attr('timezone'),
  attr('active', { type: 'boolean' }),
  multi('emails', typed),
  multi('phoneNumbers', typed),
  multi('addresses', ['formatted', 'streetAddress', 'locality', 'region', 'postalCode', 'country', 'type'].map((name) => attr(name))),
  multi('groups', [attr('value', { mutability: 'readOnly' }), attr('$ref', { type: 'reference', referenceTypes: ['Group'], mutability: 'readOnly' }), attr('display', { mutability: 'readOnly' }), attr('type', { mutability: 'readOnly' })], { mutability: 'readOnly' }),
  multi('roles', typed),
];

const GROUP_ATTRIBUTES = [
  attr('displayName', { required: true }),
  multi('members', [attr('value', { mutability: 'immutable' }), attr('$ref', { type: 'reference', referenceTypes: ['User', 'Group'], mutability: 'immutable' }), attr('display', { mutability: 'readOnly' }), attr('type', { mutability: 'immutable', canonicalValues: ['User', 'Group'] })]),
];

const ENTERPRISE_ATTRIBUTES = [
  attr('employeeNumber'),
  attr('costCenter'),
  attr('organization'),
  attr('division'),
  attr('department'),
  complex('manager', [attr('value'), attr('$ref', { type: 'reference', referenceTypes: ['User'] }), attr('displayName', { mutability: 'readOnly' })]),
];

const common = [attr('id', { caseExact: true, mutability: 'readOnly', returned: 'always', uniqueness: 'server' }), attr('externalId', { caseExact: true })];

function schemas(base: string) {
  const schema = (id: string, name: string, description: string, attributes: Attribute[]) => ({
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    id,
    name,
    description,
    attributes,
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${id}` },
  });
  return [
    schema(USER_SCHEMA, 'User', 'User Account', [...common, ...USER_ATTRIBUTES]),
    schema(GROUP_SCHEMA, 'Group', 'Group', [...common, ...GROUP_ATTRIBUTES]),
    schema(ENTERPRISE_SCHEMA, 'EnterpriseUser', 'Enterprise User', ENTERPRISE_ATTRIBUTES),
  ];
}

function resourceTypes(base: string) {
  return [
    {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'User Account',
      schema: USER_SCHEMA,
      schemaExtensions: [{ schema: ENTERPRISE_SCHEMA, required: false }],
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
    },
    {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description: 'Group',
      schema: GROUP_SCHEMA,
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/Group` },
    },
  ];
}

const list = (resources: unknown[]) => ({ schemas: [LIST_SCHEMA], totalResults: resources.length, startIndex: 1, itemsPerPage: resources.length, Resources: resources });

export function serviceProviderConfig(base: string, documentationUri: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    documentationUri,
    patch: { supported: true },
    bulk: { supported: true, maxOperations: MAX_BULK_OPERATIONS, maxPayloadSize: MAX_PAYLOAD_BYTES },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: true },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description: "A SCIM token of this domain (made in the console's Provisioning tab), or an access token from client credentials for this SCIM base URL with the scim scope",
        specUri: 'https://www.rfc-editor.org/rfc/rfc6750',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

export function schemasAnswer(base: string, id?: string) {
  const all = schemas(base);
  if (id === undefined) return list(all);
  const found = all.find((schema) => schema.id.toLowerCase() === id.toLowerCase());
  if (!found) throw notFound(`Schema ${id}`);
  return found;
}

export function resourceTypesAnswer(base: string, id?: string) {
  const all = resourceTypes(base);
  if (id === undefined) return list(all);
  const found = all.find((type) => type.id.toLowerCase() === id.toLowerCase());
  if (!found) throw notFound(`ResourceType ${id}`);
  return found;
}
