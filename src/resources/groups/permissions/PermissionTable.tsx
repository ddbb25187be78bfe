import { Box, IconButton, Table, TableBody, TableCell, TableHead, TableRow } from '@mui/material';
import DeleteIcon from '@mui/icons-material/Delete';
import { useTranslate, type ListControllerResult } from 'react-admin';
import { DisabledReason } from '../../generic/DisabledReason';
import { groupPermissions } from '../index';
import { PagedTableFrame } from '../panel/PagedTableFrame';
import type { GroupPermission } from './permission';

/** Read by screen readers, not shown: the actions column's header (1px: in sx, a width of 1 is 100%). */
const visuallyHidden = {
  position: 'absolute',
  width: '1px',
  height: '1px',
  overflow: 'hidden',
  clip: 'rect(0 0 0 0)',
  whiteSpace: 'nowrap',
} as const;

interface PermissionTableProps {
  list: ListControllerResult<GroupPermission>;
  disabled?: boolean;
  /** Why the rows' delete is not offered (the roles): their tooltip. */
  disabledReason?: string;
  onDelete: (permission: GroupPermission) => void;
}

/** The group's granted permissions, server-paged (15 a page, 10 page numbers), a delete action per row. */
export function PermissionTable({ list, disabled, disabledReason, onDelete }: PermissionTableProps) {
  const translate = useTranslate();
  const rows = list.data ?? [];

  return (
    <PagedTableFrame list={list} declaration={groupPermissions} emptyText="iam.groupPermissions.empty">
      <Table size="small" aria-label={translate('iam.groupPermissions.tab')}>
          <TableHead>
            <TableRow>
              <TableCell>{translate('iam.groupPermissions.api')}</TableCell>
              <TableCell>{translate('iam.groupPermissions.permission')}</TableCell>
              <TableCell>{translate('iam.groupPermissions.description')}</TableCell>
              <TableCell align="right">
                <Box component="span" sx={visuallyHidden}>
                  {translate('iam.groupPermissions.actions')}
                </Box>
              </TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {rows.map((row) => (
              <TableRow key={row.id} hover>
                <TableCell>{row.apiName}</TableCell>
                <TableCell sx={{ fontFamily: 'monospace' }}>{row.permission}</TableCell>
                <TableCell>{row.description}</TableCell>
                <TableCell align="right" padding="checkbox">
                  <DisabledReason reason={disabledReason}>
                    <IconButton
                      color="error"
                      disabled={disabled}
                      aria-label={translate('iam.groupPermissions.deleteOne', { permission: row.permission, api: row.apiName })}
                      onClick={() => onDelete(row)}
                    >
                      <DeleteIcon />
                    </IconButton>
                  </DisabledReason>
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
      </Table>
    </PagedTableFrame>
  );
}
