import { useCallback, useEffect, useState } from 'react';
import { useLogoutIfAccessDenied, useTranslate } from 'react-admin';
import type { PageRequest, PageResult } from '../members/membersApi';

/**
 * SPEC 8 for group calls: an authentication error (401) signs out to /login through the auth
 * provider's checkError; any other error comes back as a message to show.
 */
export function useGroupCallError(): (error: unknown) => Promise<string | undefined> {
  const logoutIfAccessDenied = useLogoutIfAccessDenied();
  const translate = useTranslate();
  return useCallback(
    async (error: unknown) => {
      if (await logoutIfAccessDenied(error)) return undefined;
      return (error as Error)?.message || translate('ra.notification.http_error');
    },
    [logoutIfAccessDenied, translate],
  );
}

interface PagedState<T> extends PageResult<T> {
  isPending: boolean;
  error?: string;
}

/** One page from the provider, fetched again whenever `key` or the request changes, or on reload(). */
export function usePagedRequest<T>(load: (request: PageRequest) => Promise<PageResult<T>>, request: PageRequest, key: string) {
  const [state, setState] = useState<PagedState<T>>({ rows: [], total: 0, isPending: true });
  const [version, setVersion] = useState(0);
  const handleError = useGroupCallError();
  const { page, perPage, q } = request;

  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, isPending: true, error: undefined }));
    load({ page, perPage, q }).then(
      (result) => current && setState({ ...result, isPending: false }),
      async (error) => {
        const message = await handleError(error);
        if (current) setState((previous) => ({ ...previous, isPending: false, error: message }));
      },
    );
    return () => {
      current = false;
    };
    // load is rebuilt every render; key names what it reads.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, page, perPage, q, version, handleError]);

  const reload = useCallback(() => setVersion((value) => value + 1), []);
  return { ...state, reload };
}
