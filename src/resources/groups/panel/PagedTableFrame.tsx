import type { ReactNode } from 'react';
import { Alert, LinearProgress, Typography } from '@mui/material';
import { ListContextProvider, useTranslate, type ListControllerResult } from 'react-admin';
import { rowsPerPageOptions, WindowPagination } from '../../generic/WindowPagination';
import type { ResourceDeclaration } from '../../types';
import { useErrorText } from './useGroupList';

interface PagedTableFrameProps {
  list: ListControllerResult;
  /** Message key shown instead of the table when there is nothing to list. */
  emptyText: string;
  /** Its page size and window of page numbers. */
  declaration: ResourceDeclaration;
  /** The table itself. */
  children: ReactNode;
}

/**
 * What the group form's paged tables share: loading bar, error, empty state and pagination
 * (docs/CONSOLE.md, "Constants": 15 a page, 10 page numbers).
 */
export function PagedTableFrame({ list, emptyText, declaration, children }: PagedTableFrameProps) {
  const translate = useTranslate();
  const error = useErrorText()(list.error);
  const { pageSize, pageWindow } = declaration;
  return (
    <>
      {list.isFetching && <LinearProgress aria-label={translate('iam.list.loading')} />}
      {error && (
        <Alert severity="error" role="alert" sx={{ my: 1 }}>
          {error}
        </Alert>
      )}
      {!list.isPending && !error && !list.data?.length ? (
        <Typography sx={{ p: 2 }} color="text.secondary" role="status">
          {translate(emptyText)}
        </Typography>
      ) : (
        children
      )}
      <ListContextProvider value={list}>
        <WindowPagination window={pageWindow} rowsPerPageOptions={rowsPerPageOptions(pageSize)} />
      </ListContextProvider>
    </>
  );
}
