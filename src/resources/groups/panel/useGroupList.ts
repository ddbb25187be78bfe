import { useQueryClient, useMutation } from '@tanstack/react-query';
import { useDataProvider, useListController, useTranslate, type ListControllerResult, type RaRecord } from 'react-admin';
import type { IamDataProvider, IamMeta } from '../../../dataProvider';
import type { PathContext } from '../../../session/session';
import type { ResourceDeclaration } from '../../types';

/** The path context of what lives below one group (its members, candidates, permissions). */
export function groupMeta(context: PathContext, groupId: string, extra: IamMeta = {}): IamMeta {
  return { ...extra, pathContext: { ...context, parentId: groupId } };
}

/**
 * One of the group form's server-paged tables (an embedded resource), through the data provider:
 * its page, page size and search live in the table, not in the address or the store. react-admin
 * steps back a page when a removal empties the last one, and signs out on a 401 (checkError).
 */
export function useGroupList<T extends RaRecord>(
  declaration: ResourceDeclaration,
  context: PathContext,
  groupId: string,
  query?: Record<string, string>,
  /** The filter it opens with (the Members tab's, from its address). */
  filterDefaultValues?: Record<string, string>,
): ListControllerResult<T> {
  return useListController<T>({
    resource: declaration.name,
    perPage: declaration.pageSize,
    sort: declaration.defaultSort,
    filterDefaultValues,
    debounce: 300,
    queryOptions: { meta: groupMeta(context, groupId, { query }) as Record<string, unknown> },
    disableSyncWithLocation: true,
    storeKey: false,
  });
}

/** POSTs a list body to an embedded collection (all or nothing), then reads its lists again. */
export function useCreateMany(resource: string) {
  const dataProvider = useDataProvider<IamDataProvider>();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ data, meta }: { data: unknown[]; meta: IamMeta }) => dataProvider.createMany(resource, { data, meta }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [resource] }),
  });
}

/** A failed call's message to show (docs/CONSOLE.md, "Errors and messages"). */
export function useErrorText(): (error: unknown) => string | undefined {
  const translate = useTranslate();
  return (error) => (error ? (error as Error).message || translate('ra.notification.http_error') : undefined);
}
