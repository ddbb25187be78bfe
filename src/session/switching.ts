import type { IamDataProvider } from '../dataProvider';
import { updateSession, type Company, type Domain } from './session';

/** docs/CONSOLE.md, "Companies": switching loads the company and its primary domain and makes both current. */
export async function switchToCompany(dataProvider: IamDataProvider, companyId: string): Promise<Company> {
  const { data: company } = await dataProvider.getOne<Company>('companies', { id: companyId });
  let domain: Domain | undefined;
  try {
    ({ data: domain } = await dataProvider.getOne<Domain>('domains', { id: 'primary', meta: { pathContext: { companyId } } }));
  } catch (error) {
    // A new company has no domain yet: switch anyway so its first domain can be created.
    if ((error as { status?: number }).status !== 404) throw error;
  }
  updateSession({ company, domain });
  return company;
}

/** How many domains Set Primary reads per request while collecting the whole list. */
const DOMAIN_PAGE = 1000;

/**
 * docs/CONSOLE.md, "Domains": Set Primary PUTs the company's whole domain list with primary true only on the chosen
 * one, then that domain becomes the current one.
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
  const chosen = updated.find((domain) => domain.id === domainId);
  if (chosen) updateSession({ domain: chosen });
  return chosen;
}
