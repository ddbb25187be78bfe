import type { IamDataProvider } from '../dataProvider';
import { getSession, updateSession, type Company, type Domain } from './session';

/** Where the console works: a company and its current domain (none while the company has none). */
export interface Tenant {
  company: Company;
  domain?: Domain;
}

/** The session's company and domain, before a switch changes them. */
export function currentTenant(): Tenant | undefined {
  const { company, domain } = getSession();
  return company ? { company, domain } : undefined;
}

/**
 * docs/CONSOLE.md, "Companies": switching loads the company and its domain (the primary one unless
 * `domainId` names another) and makes both current.
 */
export async function switchToCompany(dataProvider: IamDataProvider, companyId: string, domainId = 'primary'): Promise<Tenant> {
  const { data: company } = await dataProvider.getOne<Company>('companies', { id: companyId });
  let domain: Domain | undefined;
  try {
    ({ data: domain } = await dataProvider.getOne<Domain>('domains', { id: domainId, meta: { pathContext: { companyId } } }));
  } catch (error) {
    // A new company has no domain yet: switch anyway so its first domain can be created.
    if (domainId !== 'primary' || (error as { status?: number }).status !== 404) throw error;
  }
  updateSession({ company, domain });
  return { company, domain };
}

/** docs/CONSOLE.md, "Domains": another domain of the current company becomes current; nothing is called. */
export function switchToDomain(domain: Domain): Tenant | undefined {
  const { company } = getSession();
  if (!company) return undefined;
  updateSession({ domain });
  return { company, domain };
}

/** How many domains Set Primary reads per request while collecting the whole list. */
const DOMAIN_PAGE = 1000;

/**
 * docs/CONSOLE.md, "Domains": Set Primary PUTs the company's whole domain list with primary true only
 * on the chosen one. It changes which domain is primary and nothing else: the current domain stays
 * current (docs/DECISIONS.md, item 33); only its copy of the `primary` flag follows the change.
 */
export async function setPrimaryDomain(dataProvider: IamDataProvider, companyId: string, domainId: string) {
  const meta = { pathContext: { companyId } };
  const all: Domain[] = [];
  for (let page = 1; ; page++) {
    const { data, total = 0 } = await dataProvider.getList<Domain>('domains', {
      pagination: { page, perPage: DOMAIN_PAGE },
      sort: { field: 'name', order: 'ASC' },
      filter: {},
      meta,
    });
    all.push(...data);
    if (data.length < DOMAIN_PAGE || all.length >= total) break;
  }
  const updated = all.map((domain) => ({ ...domain, primary: domain.id === domainId }));
  await dataProvider.replaceAll('domains', { data: updated, meta });
  const { company, domain: current } = getSession();
  if (current && company?.id === companyId && Boolean(current.primary) !== (current.id === domainId)) {
    updateSession({ domain: { ...current, primary: current.id === domainId } });
  }
  return updated.find((domain) => domain.id === domainId);
}
