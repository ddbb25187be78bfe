import type { ReactNode } from 'react';
import { Alert, LinearProgress, Typography } from '@mui/material';
import { ListContextProvider, useTranslate, type ListControllerResult } from 'react-admin';
import { WindowPagination } from '../../generic/WindowPagination';
import { MEMBER_PAGE_SIZE, MEMBER_PAGE_WINDOW } from '../index';
import type { PageControls } from './pageControls';

interface PagedTableFrameProps {
  isPending: boolean;
  error?: string;
  isEmpty: boolean;
  /** Message key shown instead of the table when there is nothing to list. */
  emptyText: string;
  total: number;
  controls: PageControls;
  /** The table itself. */
  children: ReactNode;
}

/** What the group form's paged tables share: loading bar, error, empty state and pagination (SPEC 9: 15 a page). */
export function PagedTableFrame({ isPending, error, isEmpty, emptyText, total, controls, children }: PagedTableFrameProps) {
  const translate = useTranslate();
  // WindowPagination reads a list context: give it this table's page state.
  const pagination = { ...controls, total, isPending } as unknown as ListControllerResult;
  return (
    <>
      {isPending && <LinearProgress aria-label={translate('iam.list.loading')} />}
      {error && (
        <Alert severity="error" role="alert" sx={{ my: 1 }}>
          {error}
        </Alert>
      )}
      {!isPending && !error && isEmpty ? (
        <Typography sx={{ p: 2 }} color="text.secondary" role="status">
          {translate(emptyText)}
        </Typography>
      ) : (
        children
      )}
      <ListContextProvider value={pagination}>
        <WindowPagination
          window={MEMBER_PAGE_WINDOW}
          rowsPerPageOptions={[MEMBER_PAGE_SIZE, MEMBER_PAGE_SIZE * 2, MEMBER_PAGE_SIZE * 5]}
        />
      </ListContextProvider>
    </>
  );
}
