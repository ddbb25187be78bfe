import { Box, IconButton, Table, TableBody, TableCell, TableHead, TableRow } from '@mui/material';
import DeleteIcon from '@mui/icons-material/Delete';
import { useTranslate } from 'react-admin';
import type { PageControls } from '../panel/pageControls';
import { PagedTableFrame } from '../panel/PagedTableFrame';
import { permissionKey, type GroupPermission } from './permissionsApi';

/** Read by screen readers, not shown: the actions column's header. */
const visuallyHidden = {
  position: 'absolute',
  width: 1,
  height: 1,
  overflow: 'hidden',
  clip: 'rect(0 0 0 0)',
  whiteSpace: 'nowrap',
} as const;

interface PermissionTableProps {
  rows: readonly GroupPermission[];
  total: number;
  isPending: boolean;
  error?: string;
  controls: PageControls;
  disabled?: boolean;
  onDelete: (permission: GroupPermission) => void;
}

/** The group's granted permissions, server-paged (SPEC 9: 15 a page, 10 page numbers), a delete action per row. */
export function PermissionTable({ rows, total, isPending, error, controls, disabled, onDelete }: PermissionTableProps) {
  const translate = useTranslate();

  return (
    <PagedTableFrame
      isPending={isPending}
      error={error}
      isEmpty={rows.length === 0}
      emptyText="iam.groupPermissions.empty"
      total={total}
      controls={controls}
    >
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
              <TableRow key={permissionKey(row)} hover>
                <TableCell>{row.apiName}</TableCell>
                <TableCell sx={{ fontFamily: 'monospace' }}>{row.permission}</TableCell>
                <TableCell>{row.description}</TableCell>
                <TableCell align="right" padding="checkbox">
                  <IconButton
                    color="error"
                    disabled={disabled}
                    aria-label={translate('iam.groupPermissions.deleteOne', { permission: row.permission, api: row.apiName })}
                    onClick={() => onDelete(row)}
                  >
                    <DeleteIcon />
                  </IconButton>
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
      </Table>
    </PagedTableFrame>
  );
}
