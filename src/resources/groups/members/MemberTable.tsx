import {
  Alert,
  Checkbox,
  LinearProgress,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { ListContextProvider, useTranslate, type ListControllerResult } from 'react-admin';
import { WindowPagination } from '../../generic/WindowPagination';
import { MEMBER_PAGE_SIZE, MEMBER_PAGE_WINDOW } from '../index';
import type { Member } from './membersApi';

export const memberKey = (member: Pick<Member, 'id' | 'type'>) => `${member.type}:${member.id}`;

export interface PageControls {
  page: number;
  perPage: number;
  setPage: (page: number) => void;
  setPerPage: (perPage: number) => void;
}

interface MemberTableProps {
  label: string;
  rows: readonly Member[];
  total: number;
  isPending: boolean;
  error?: string;
  controls: PageControls;
  selected: ReadonlyMap<string, Member>;
  onSelect: (members: readonly Member[], selected: boolean) => void;
  emptyText: string;
  showEmail?: boolean;
}

/** A server-paged table of members or candidates with checkboxes (the selection survives paging). */
export function MemberTable({
  label,
  rows,
  total,
  isPending,
  error,
  controls,
  selected,
  onSelect,
  emptyText,
  showEmail = false,
}: MemberTableProps) {
  const translate = useTranslate();
  const selectedOnPage = rows.filter((row) => selected.has(memberKey(row))).length;
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
      {!isPending && !error && rows.length === 0 ? (
        <Typography sx={{ p: 2 }} color="text.secondary" role="status">
          {translate(emptyText)}
        </Typography>
      ) : (
        <Table size="small" aria-label={label}>
          <TableHead>
            <TableRow>
              <TableCell padding="checkbox">
                <Checkbox
                  slotProps={{ input: { 'aria-label': translate('iam.members.selectPage') } }}
                  checked={rows.length > 0 && selectedOnPage === rows.length}
                  indeterminate={selectedOnPage > 0 && selectedOnPage < rows.length}
                  onChange={(event) => onSelect(rows, event.target.checked)}
                />
              </TableCell>
              <TableCell>{translate('iam.members.displayName')}</TableCell>
              {showEmail && <TableCell>{translate('resources.users.fields.email')}</TableCell>}
              <TableCell>{translate('iam.members.type')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {rows.map((row) => {
              const isSelected = selected.has(memberKey(row));
              return (
                <TableRow key={memberKey(row)} hover selected={isSelected} onClick={() => onSelect([row], !isSelected)}>
                  <TableCell padding="checkbox">
                    <Checkbox
                      slotProps={{ input: { 'aria-label': translate('iam.members.select', { name: row.displayName }) } }}
                      checked={isSelected}
                      onClick={(event) => event.stopPropagation()}
                      onChange={(event) => onSelect([row], event.target.checked)}
                    />
                  </TableCell>
                  <TableCell>{row.displayName}</TableCell>
                  {showEmail && <TableCell>{row.email}</TableCell>}
                  <TableCell>{translate(`iam.members.types.${row.type}`)}</TableCell>
                </TableRow>
              );
            })}
          </TableBody>
        </Table>
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
