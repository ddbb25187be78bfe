import { Box, Button, IconButton, MenuItem, TextField, Typography } from '@mui/material';
import ChevronLeftIcon from '@mui/icons-material/ChevronLeft';
import ChevronRightIcon from '@mui/icons-material/ChevronRight';
import { useGetList, useListContext, useStore, useTranslate } from 'react-admin';
import type { IamMeta } from '../../dataProvider';

/** The page numbers to show: `size` consecutive pages around the current one, inside 1..pageCount. */
export function pageWindow(page: number, pageCount: number, size: number): number[] {
  const count = Math.min(size, pageCount);
  const first = Math.max(1, Math.min(page - Math.floor((count - 1) / 2), pageCount - count + 1));
  return Array.from({ length: count }, (_, index) => first + index);
}

/** Rows per page offered: the list's own page size (the specification's default), and up to 100 (docs/CONSOLE.md, "Lists"). */
export const rowsPerPageOptions = (pageSize: number) => [...new Set([pageSize, 25, 50, 100])].sort((a, b) => a - b);

/**
 * A person's choice of rows per page for one list, kept in react-admin's store under
 * `perPage.{key}` (docs/CONSOLE.md, "Lists"): the list's own page size until she chooses another
 * it offers. The list starts with it; WindowPagination's `onPerPageChange` remembers a new one.
 */
export function useRememberedPerPage(key: string, pageSize: number): [number, (perPage: number) => void] {
  const [stored, setStored] = useStore<number | undefined>(`perPage.${key}`);
  const perPage = stored !== undefined && rowsPerPageOptions(pageSize).includes(stored) ? stored : pageSize;
  return [perPage, setStored];
}

interface WindowPaginationProps {
  window: number;
  rowsPerPageOptions: number[];
  /** Remembers the rows per page chosen (useRememberedPerPage). */
  onPerPageChange?: (perPage: number) => void;
  /**
   * The list asks its page with `total=deferred` (its declaration's deferredTotal): these are its
   * meta and fixed filter, to ask the same list's total once the page shows.
   */
  deferred?: { meta?: IamMeta; filter?: Record<string, unknown> };
}

/**
 * The total of a list whose page came uncounted: the same list asked again for one row, counted
 * (docs/CONSOLE.md, "Lists"). Until it comes the range says "of more than".
 */
function useDeferredTotal(deferred: WindowPaginationProps['deferred'], enabled: boolean) {
  const { resource, filterValues, sort } = useListContext();
  const { total } = useGetList(
    resource,
    { pagination: { page: 1, perPage: 1 }, sort, filter: { ...filterValues, ...deferred?.filter }, meta: { ...deferred?.meta, deferTotal: false } },
    { enabled: enabled && Boolean(deferred), staleTime: 30_000 },
  );
  return total;
}

/** Pagination with a fixed window of page numbers (docs/CONSOLE.md, "Constants") and a rows-per-page choice. */
export function WindowPagination({ window, rowsPerPageOptions, onPerPageChange, deferred }: WindowPaginationProps) {
  const { page, perPage, total: listed, hasNextPage, setPage, setPerPage, isPending } = useListContext();
  const translate = useTranslate();
  const uncounted = listed === undefined && hasNextPage !== undefined;
  const counted = useDeferredTotal(deferred, uncounted);
  // a count (or its estimate) never says less than the rows already paged through
  const total = uncounted ? (counted === undefined ? undefined : Math.max(counted, page * perPage + (hasNextPage ? 1 : 0))) : listed;
  if (isPending || (!total && !uncounted)) return null;
  const pageCount = total ? Math.max(1, Math.ceil(total / perPage)) : page + (hasNextPage ? 1 : 0);
  const from = (page - 1) * perPage + 1;
  const to = total ? Math.min(total, page * perPage) : page * perPage;

  return (
    <Box
      component="nav"
      aria-label={translate('ra.navigation.page_rows_per_page')}
      sx={{ display: 'flex', alignItems: 'center', justifyContent: 'flex-end', flexWrap: 'wrap', gap: 1, p: 1 }}
    >
      <Box sx={{ width: 140 }}>
        <TextField
          select
          size="small"
          label={translate('iam.list.rowsPerPage')}
          value={perPage}
          onChange={(event) => {
            setPerPage(Number(event.target.value));
            onPerPageChange?.(Number(event.target.value));
          }}
          fullWidth
          margin="none"
        >
          {rowsPerPageOptions.map((option) => (
            <MenuItem key={option} value={option}>
              {option}
            </MenuItem>
          ))}
        </TextField>
      </Box>
      <Typography variant="body2" sx={{ mx: 1 }}>
        {total ? translate('iam.list.range', { from, to, total }) : translate('iam.list.rangeMore', { from, to })}
      </Typography>
      <IconButton aria-label={translate('iam.list.previous')} disabled={page <= 1} onClick={() => setPage(page - 1)}>
        <ChevronLeftIcon />
      </IconButton>
      {pageWindow(page, pageCount, window).map((number) => (
        <Button
          key={number}
          size="small"
          variant={number === page ? 'contained' : 'text'}
          aria-current={number === page ? 'page' : undefined}
          aria-label={translate('iam.list.page', { page: number })}
          onClick={() => setPage(number)}
          sx={{ minWidth: 36 }}
        >
          {number}
        </Button>
      ))}
      <IconButton
        aria-label={translate('iam.list.next')}
        disabled={page >= pageCount}
        onClick={() => setPage(page + 1)}
      >
        <ChevronRightIcon />
      </IconButton>
    </Box>
  );
}
