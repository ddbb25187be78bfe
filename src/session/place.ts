import type { Company, Domain } from './session';

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** What a company is called on screen: its display name, else its name. */
export const companyLabel = (company: Company): string => company.displayName || company.name || company.id;

/** Where the console works, in words: "Globex › prod", or the company alone while it has no domain. */
export function placeOf(translate: Translate, company: Company, domain: Domain | undefined): string {
  return domain
    ? translate('iam.tenant.place', { company: companyLabel(company), domain: domain.name || domain.id })
    : translate('iam.tenant.placeNoDomain', { company: companyLabel(company) });
}
