import { useState } from 'react';
import { Button, Stack, ToggleButton, ToggleButtonGroup } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import { TopToolbar, useTranslate, type RaRecord } from 'react-admin';
import { useDeclaration } from '../generic/DeclarationContext';
import { DeclaredList } from '../generic/DeclaredList';
import { DeleteSelectedButton } from '../generic/DeleteSelectedButton';
import { RecoverButton, SoftDeleteButton } from '../generic/StatusButtons';
import { useListMeta } from '../generic/useListMeta';
import { DomainSwitcher } from './DomainSwitcher';

export type ListStatus = 'active' | 'deleted';

interface StatusListProps {
  onNew: () => void;
  onRowClick: (record: RaRecord) => void;
}

/**
 * A list of one domain's records with the Domains drop-down, a status filter (active or deleted),
 * New and Delete on active records, Recover and Purge on deleted ones.
 */
export function StatusList({ onNew, onRowClick }: StatusListProps) {
  const declaration = useDeclaration();
  const translate = useTranslate();
  const [status, setStatus] = useState<ListStatus>('active');
  const soft = declaration.softDelete!;
  const meta = useListMeta(status === 'deleted' ? { condition: `${soft.field},=,${soft.deleted}` } : {});

  return (
    <DeclaredList
      key={status}
      title={translate(declaration.labelKey)}
      meta={meta}
      onRowClick={onRowClick}
      actions={
        <TopToolbar sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', rowGap: 1 }}>
            <DomainSwitcher />
            <ToggleButtonGroup
              exclusive
              size="small"
              value={status}
              aria-label={translate('iam.statusList.status')}
              // The standard grey of unselected buttons falls just under 4.5:1 on the page background.
              sx={{ '& .MuiToggleButton-root': { color: 'text.secondary' }, '& .Mui-selected': { color: 'text.primary' } }}
              onChange={(_event, value: ListStatus | null) => value && setStatus(value)}
            >
              <ToggleButton value="active">{translate('iam.statusList.active')}</ToggleButton>
              <ToggleButton value="deleted">{translate('iam.statusList.deleted')}</ToggleButton>
            </ToggleButtonGroup>
            {status === 'active' ? (
              <>
                <Button variant="contained" startIcon={<AddIcon />} onClick={onNew}>
                  {translate('iam.actions.new')}
                </Button>
                <SoftDeleteButton meta={meta} />
              </>
            ) : (
              <>
                <RecoverButton meta={meta} confirm={{ title: 'iam.applications.recoverTitle', content: 'iam.applications.recoverContent' }} />
                <DeleteSelectedButton meta={meta} successMessage="iam.statusList.purged" />
              </>
            )}
          </Stack>
        </TopToolbar>
      }
    />
  );
}
