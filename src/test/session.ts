import { updateSession } from '../session/session';

/** A signed-in administrator of `company` (the root, by default) in one of its domains. */
export function signedInAs(companyId = 'root', domainId = 'default') {
  updateSession({
    user: { displayName: 'Ada Admin', email: 'admin@example.com' },
    company: { id: companyId, name: companyId, type: 'root', parent: null },
    rootCompany: { id: companyId, name: companyId, type: 'root' },
    domain: { id: domainId, name: domainId, description: 'Default domain', primary: true },
    accessToken: 'x.e30.y',
  });
}
