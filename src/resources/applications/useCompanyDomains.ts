import { useGetList } from 'react-admin';
import type { Domain } from '../../session/session';
import { useSession } from '../../session/useSession';

/** Enough for any real company; the drop-down is a choice list, not a browser of thousands. */
const MAX_DOMAINS = 500;

/** The current company's domains, for the Domains drop-down and the domain choice of a new record. */
export function useCompanyDomains(companyId?: string) {
  const { company } = useSession();
  const id = companyId ?? company?.id ?? '';
  return useGetList<Domain & { id: string }>(
    'domains',
    {
      pagination: { page: 1, perPage: MAX_DOMAINS },
      sort: { field: 'name', order: 'ASC' },
      filter: {},
      meta: { pathContext: { companyId: id } },
    },
    { enabled: Boolean(id) },
  );
}
