import { useQuery } from '@tanstack/react-query';
import { useDataProvider, type Identifier } from 'react-admin';
import type { Administrator, IamDataProvider } from '../../dataProvider';
import type { PathContext } from '../../session/session';
import { useListMeta } from '../generic/useListMeta';

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** The group whose members administer the domain (the provider's ADMIN_GROUP). */
export const ADMINISTRATORS_GROUP = 'administrators';

/**
 * The domain's active administrators, from the provider's administrators call (react-query, as
 * react-admin does for custom calls, so react-admin's refresh reads them again after a delete).
 * Read only while `wanted`: once something is selected that they could be among.
 */
export function useAdministrators(context?: PathContext, wanted = true) {
  const dataProvider = useDataProvider<IamDataProvider>();
  const { pathContext: session } = useListMeta();
  const pathContext = context ?? { companyId: session?.companyId ?? '', domainId: session?.domainId ?? '' };
  return useQuery({
    queryKey: ['administrators', pathContext.companyId, pathContext.domainId],
    queryFn: async () => (await dataProvider.getAdministrators({ meta: { pathContext } })).data,
    enabled: wanted && Boolean(pathContext.companyId && pathContext.domainId),
  });
}

/**
 * Why taking these users away would leave the domain without an administrator (the provider
 * answers 409 to it, docs/CONSOLE.md "Users"): every active administrator is among them.
 */
export function lastAdministratorReason(
  removed: readonly Identifier[],
  administrators: readonly Administrator[] | undefined,
  translate: Translate,
): string | undefined {
  if (!administrators?.length || !administrators.every((admin) => removed.includes(admin.id))) return undefined;
  if (administrators.length > 1) return translate('iam.administrators.lastAll');
  const [last] = administrators;
  return translate('iam.administrators.lastOne', { name: last.displayName || last.username });
}
