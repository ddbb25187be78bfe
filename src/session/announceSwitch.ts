import { useNotify, useTranslate } from 'react-admin';
import { companyLabel, placeOf } from './place';
import { rememberTenants, type RecentTenant } from './recentTenants';
import { getSession } from './session';
import type { Tenant } from './switching';

const recentOf = ({ company, domain }: Tenant): RecentTenant => ({
  companyId: company.id,
  companyName: companyLabel(company),
  ...(domain ? { domainId: domain.id, domainName: domain.name || domain.id } : {}),
});

/**
 * After every switch (the app bar's switcher, the companies' Switch and Parent, a domain's Switch):
 * the device remembers where the administrator went and came from (the switcher's recent choices)
 * and a notification says what is current now, in one wording: "Now in Globex › prod".
 */
export function useAnnounceSwitch() {
  const notify = useNotify();
  const translate = useTranslate();
  return (from: Tenant | undefined, to: Tenant) => {
    rememberTenants(getSession(), recentOf(to), ...(from ? [recentOf(from)] : []));
    notify('iam.tenant.nowIn', { type: 'info', messageArgs: { place: placeOf(translate, to.company, to.domain) } });
  };
}
