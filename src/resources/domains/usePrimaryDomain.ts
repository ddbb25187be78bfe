import { useGetOne } from 'react-admin';
import type { Domain } from '../../session/session';
import { useSession } from '../../session/useSession';
import { useListMeta } from '../generic/useListMeta';

/**
 * The id of the current company's primary domain, read from the provider rather than from the
 * session: the session's domain is the current one, which need not be the primary one, and its
 * `primary` flag is a copy from when it became current. The current domain travels in the query
 * key, so Switch and Set Primary read it again.
 */
export function usePrimaryDomainId(): string | undefined {
  const { company, domain } = useSession();
  const meta = useListMeta();
  const { data } = useGetOne<Domain>('domains', { id: 'primary', meta }, { enabled: Boolean(company && domain) });
  return data?.id;
}
