import { Box, Button, IconButton, MenuItem, TextField, Typography } from '@mui/material';
import ChevronLeftIcon from '@mui/icons-material/ChevronLeft';
import ChevronRightIcon from '@mui/icons-material/ChevronRight';
import { useListContext, useTranslate } from 'react-admin';

/** The page numbers to show: `size` consecutive pages around the current one, inside 1..pageCount. */
export function pageWindow(page: number, pageCount: number, size: number): number[] {
  const count = Math.min(size, pageCount);
  const first = Math.max(1, Math.min(page - Math.floor((count - 1) / 2), pageCount - count + 1));
  return Array.from({ length: count }, (_, index) => first + index);
}

/** Rows per page offered: the list's own page size (the specification's default), and up to 100 (docs/CONSOLE.md, "Lists"). */
export const rowsPerPageOptions = (pageSize: number) => [...new Set([pageSize, 25, 50, 100])].sort((a, b) => a - b);

interface WindowPaginationProps {
  window: number;
  rowsPerPageOptions: number[];
}

/** Pagination with a fixed window of page numbers (docs/CONSOLE.md, "Constants") and a rows-per-page choice. */
export function WindowPagination({ window, rowsPerPageOptions }: WindowPaginationProps) {
  const { page, perPage, total, setPage, setPerPage, isPending } = useListContext();
  const translate = useTranslate();
  if (isPending || !total) return null;
  const pageCount = Math.max(1, Math.ceil(total / perPage));
  const from = (page - 1) * perPage + 1;
  const to = Math.min(total, page * perPage);

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
          onChange={(event) => setPerPage(Number(event.target.value))}
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
        {translate('iam.list.range', { from, to, total })}
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
