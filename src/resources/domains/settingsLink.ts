/**
 * The way to a domain's own screen (general, Security, History; docs/CONSOLE.md, "Domains"): its
 * record address, and the navigation state a Domains row gives, so the screen shows at once. Small
 * and free of declarations: the dashboard and the switcher import it.
 */
import type { Company, Domain } from '../../session/session';
import { recordHref } from '../generic/recordLink';

/** `/domains/{id}?company={c}`, with `&tab=security` for the Security tab. */
export function domainSettingsHref(company: Pick<Company, 'id'>, domain: Pick<Domain, 'id'>, tab?: 'security'): string {
  return recordHref('domains', domain.id, { companyId: company.id, domainId: '' }, tab ? { tab } : {})!;
}

/** What a Domains row hands the domain's screen (DomainFormState). */
export const domainSettingsState = (company: Company, domain: Domain) => ({ company, domain, mode: 'view' as const });
