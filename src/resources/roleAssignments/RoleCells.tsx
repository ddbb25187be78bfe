import { useGetManyAggregate, useTranslate, type RaRecord } from 'react-admin';
import { companyLabel, placeOf } from '../../session/place';
import type { Company } from '../../session/session';
import { useSession } from '../../session/useSession';
import { useRoles } from '../generic/useAllowed';

/** A role by the name the provider gives it (its id until the roles are read). */
export function RoleName({ roleId }: { roleId: string }) {
  const { data: roles } = useRoles();
  return <>{roles?.find((role) => role.id === roleId)?.name ?? roleId}</>;
}

export function RoleCell({ record }: { record: RaRecord }) {
  return <RoleName roleId={String(record.role)} />;
}

type Translate = ReturnType<typeof useTranslate>;

/** Where a role is held, in words: "Globex (and below)" over a company's subtree, "Globex › prod" over one domain. */
export function overWords(translate: Translate, company: Company, domainId: string | null | undefined): string {
  return domainId
    ? placeOf(translate, company, { id: domainId, name: domainId })
    : translate('iam.roles.overSubtree', { company: companyLabel(company) });
}

/**
 * Where the role is held: the current company by the session's name for it, a company below by its
 * display name (read with the page's others in one call).
 */
export function OverCell({ record }: { record: RaRecord }) {
  const translate = useTranslate();
  const { company: current } = useSession();
  const companyId = String(record.companyId);
  const here = current?.id === companyId;
  const { data } = useGetManyAggregate<Company & RaRecord>('subtreeCompanies', { ids: [companyId] }, { enabled: !here });
  const company = here ? current : (data?.[0] ?? { id: companyId, name: companyId });
  // a domain's name is its id
  return <>{overWords(translate, company, record.domainId as string | null)}</>;
}
