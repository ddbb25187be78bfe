import type { IamMeta } from '../../dataProvider';
import { useSession } from '../../session/useSession';

/**
 * The session's company and domain travel in meta so they are part of the query cache key:
 * switching company or domain refetches every list by itself.
 */
export function useListMeta(extra: IamMeta = {}): IamMeta {
  const { company, domain } = useSession();
  return { ...extra, pathContext: { companyId: company?.id ?? '', domainId: domain?.id ?? '' } };
}
