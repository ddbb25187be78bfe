import { Checkbox, Link, Table, TableBody, TableCell, TableHead, TableRow } from '@mui/material';
import { useNavigate, useTranslate, type ListControllerResult } from 'react-admin';
import type { ResourceDeclaration } from '../../types';
import { PagedTableFrame } from '../panel/PagedTableFrame';
import type { Member } from './member';

export const memberKey = (member: Pick<Member, 'id' | 'type'>) => `${member.type}:${member.id}`;

/** Adds or removes members from a selection kept by key (user:ada, group:ops). */
export function toggleSelection<T extends Parameters<typeof memberKey>[0]>(
  selection: ReadonlyMap<string, T>,
  members: readonly T[],
  selected: boolean,
): Map<string, T> {
  const next = new Map(selection);
  for (const member of members) {
    if (selected) next.set(memberKey(member), member);
    else next.delete(memberKey(member));
  }
  return next;
}

interface MemberTableProps {
  label: string;
  list: ListControllerResult<Member>;
  declaration: ResourceDeclaration;
  selected: ReadonlyMap<string, Member>;
  onSelect: (members: readonly Member[], selected: boolean) => void;
  emptyText: string;
  showEmail?: boolean;
  /** Each member's own address (generic/recordLink): its name becomes a link there. */
  linkOf?: (member: Member) => string | undefined;
}

/** A server-paged table of members or candidates with checkboxes (the selection survives paging). */
export function MemberTable({ label, list, declaration, selected, onSelect, emptyText, showEmail = false, linkOf }: MemberTableProps) {
  const translate = useTranslate();
  const navigate = useNavigate();
  const nameOf = (row: Member) => {
    const href = linkOf?.(row);
    if (!href) return row.displayName;
    return (
      // a real link (copied, or opened in a new tab); a click opens the record here, never selects the row
      <Link
        href={href}
        underline="hover"
        onClick={(event) => {
          event.stopPropagation();
          if (event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
          event.preventDefault();
          navigate(href);
        }}
      >
        {row.displayName}
      </Link>
    );
  };
  const rows = list.data ?? [];
  const selectedOnPage = rows.filter((row) => selected.has(memberKey(row))).length;

  return (
    <PagedTableFrame list={list} declaration={declaration} emptyText={emptyText}>
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
                <TableCell sx={{ overflowWrap: 'anywhere' }}>{nameOf(row)}</TableCell>
                {showEmail && <TableCell>{row.email}</TableCell>}
                <TableCell>{translate(`iam.members.types.${row.type}`)}</TableCell>
              </TableRow>
            );
          })}
        </TableBody>
      </Table>
    </PagedTableFrame>
  );
}
