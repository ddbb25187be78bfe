import type { FastifyInstance } from 'fastify';
import { type DomainPolicy, MFA_POLICIES, POLICY_BOUNDS, POLICY_COLUMNS, policyOf } from '../policies.js';
import { recordAudit } from '../accounts/audit.js';
import { errorResponses, params } from './schemas.js';

/**
 * A domain's security policy (docs/CONSOLE.md, "Domain security policy"): GET reads it (the
 * defaults when it was never set), PUT changes the fields it is given and keeps the others. Each
 * change is one audit record on the domain's history (action 'securityPolicy').
 */
type DomainParams = { companyId: string; domainId: string };

const integer = (bounds: { minimum: number; maximum: number }, description: string, nullable = false) =>
  ({ type: nullable ? ['integer', 'null'] : 'integer', ...bounds, description }) as const;

const policyProperties = {
  minPasswordLength: integer(POLICY_BOUNDS.minPasswordLength, 'Shortest password accepted, in characters'),
  refuseCommonPasswords: { type: 'boolean', description: 'Refuse the 10,000 most common passwords' },
  mfa: { type: 'string', enum: [...MFA_POLICIES], description: "Second factor: off, optional, required (everyone) or required-admins (those holding a console role)" },
  failuresPerAccount: integer(POLICY_BOUNDS.failuresPerAccount, "Failed sign-ins an account accepts per window; null: the server's setting", true),
  failureWindowSeconds: integer(POLICY_BOUNDS.failureWindowSeconds, "The window of those failures, in seconds; null: the server's setting", true),
  selfSignUp: { type: 'boolean', description: 'People may create their own account on the hosted sign-up page' },
} as const;

const policySchema = { type: 'object', properties: policyProperties } as const;

const COLUMN: Record<keyof DomainPolicy, string> = {
  minPasswordLength: 'min_password_length',
  refuseCommonPasswords: 'refuse_common_passwords',
  mfa: 'mfa',
  failuresPerAccount: 'failures_per_account',
  failureWindowSeconds: 'failure_window_seconds',
  selfSignUp: 'self_sign_up',
};
const FIELDS = Object.keys(COLUMN) as (keyof DomainPolicy)[];

export async function securityPolicyRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  const url = '/companys/:companyId/domainNames/:domainId/securityPolicy';
  const tags = ['domains'];
  const domainParams = params('companyId', 'domainId');

  app.get<{ Params: DomainParams }>(
    url,
    {
      config: { permission: 'domains:read' },
      schema: { tags, summary: "The domain's security policy (the defaults when never set)", params: domainParams, response: { 200: policySchema, ...errorResponses } },
    },
    // the guard has answered 404 already when the company or the domain is not the caller's to see
    async (request) => policyOf(db, request.params),
  );

  app.put<{ Params: DomainParams; Body: Partial<DomainPolicy> }>(
    url,
    {
      config: { permission: 'domains:write' },
      schema: {
        tags,
        summary: "Changes the domain's security policy: the fields given, the others kept",
        params: domainParams,
        // `id` is what the console's records carry; it is ignored
        body: { type: 'object', additionalProperties: false, properties: { ...policyProperties, id: { type: 'string', maxLength: 200 } } },
        response: { 200: policySchema, ...errorResponses },
      },
    },
    async (request) =>
      db.transaction(async (tx) => {
        const at = request.params;
        const before = await policyOf(tx, at);
        const after: DomainPolicy = { ...before };
        for (const field of FIELDS) if (request.body[field] !== undefined) (after as any)[field] = request.body[field];
        const changes = Object.fromEntries(FIELDS.filter((field) => before[field] !== after[field]).map((field) => [field, { before: before[field], after: after[field] }]));
        if (Object.keys(changes).length === 0) return after;
        const { rows } = await tx.query<DomainPolicy>(
          `INSERT INTO domain_policies AS p (company_id, domain_id, ${FIELDS.map((field) => COLUMN[field]).join(', ')})
           VALUES ($1, $2, ${FIELDS.map((_, i) => `$${i + 3}`).join(', ')})
           ON CONFLICT (company_id, domain_id) DO UPDATE SET ${FIELDS.map((field) => `${COLUMN[field]} = excluded.${COLUMN[field]}`).join(', ')}, updated_at = now()
           RETURNING ${POLICY_COLUMNS}`,
          [at.companyId, at.domainId, ...FIELDS.map((field) => after[field])],
        );
        await recordAudit(tx, { companyId: at.companyId, domainId: at.domainId, resourceType: 'domains', resourceId: at.domainId, action: 'securityPolicy', changes });
        return rows[0];
      }),
  );
}
