import { useEffect, useState } from 'react';
import { Alert, Box, Dialog, DialogContent, DialogTitle, Tab, Tabs, TextField } from '@mui/material';
import { useTranslate } from 'react-admin';
import type { PathContext } from '../../../session/session';
import { usePageControls } from '../panel/pageControls';
import { PickerActions } from '../panel/PickerActions';
import { useGroupCall } from '../panel/useGroupCall';
import { usePagedRequest } from '../panel/usePagedRequest';
import { MemberTable, toggleSelection } from './MemberTable';
import { membersApi, type Member, type MemberType } from './membersApi';

const SEARCH_DELAY_MS = 300;

interface AddMembersDialogProps {
  context: PathContext;
  group: { id: string; displayName?: string; name?: string };
  onClose: () => void;
  onAdded: (count: number) => void;
}

/**
 * SPEC 2.10's Add modal: tabs Users and Groups offer what the provider's candidates call returns
 * (active, not yet members, never the group itself nor a group that would make a cycle). The
 * selection spans both tabs and every page; Add posts it, Close and Escape leave.
 */
export function AddMembersDialog({ context, group, onClose, onAdded }: AddMembersDialogProps) {
  const translate = useTranslate();
  const [type, setType] = useState<MemberType>('user');
  const [search, setSearch] = useState('');
  const [q, setQ] = useState('');
  const controls = usePageControls();
  const [selected, setSelected] = useState<Map<string, Member>>(new Map());
  const { busy, error, run } = useGroupCall();

  useEffect(() => {
    const timer = setTimeout(() => {
      setQ(search.trim());
      controls.setPage(1);
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [search]);

  const candidates = usePagedRequest(
    (request) => membersApi.candidates(context, group.id, type, request),
    { page: controls.page, perPage: controls.perPage, q: q || undefined },
    `${context.companyId}/${context.domainId}/${group.id}/${type}`,
  );

  const add = async () => {
    if (await run(() => membersApi.add(context, group.id, [...selected.values()]))) {
      onAdded(selected.size);
      onClose();
    }
  };

  const tabId = (value: MemberType) => `add-members-tab-${value}`;

  return (
    <Dialog open onClose={onClose} aria-labelledby="add-members-title" fullWidth maxWidth="md">
      <DialogTitle id="add-members-title">
        {translate('iam.members.dialogTitle', { group: group.displayName || group.name || group.id })}
      </DialogTitle>
      <DialogContent>
        <Tabs
          value={type}
          onChange={(_event, value: MemberType) => {
            setType(value);
            controls.setPage(1);
          }}
        >
          <Tab value="user" label={translate('iam.members.users')} id={tabId('user')} aria-controls="add-members-panel" />
          <Tab value="group" label={translate('iam.members.groups')} id={tabId('group')} aria-controls="add-members-panel" />
        </Tabs>
        <Box role="tabpanel" id="add-members-panel" aria-labelledby={tabId(type)} sx={{ pt: 2 }}>
          <TextField
            type="search"
            size="small"
            fullWidth
            label={translate('iam.members.search')}
            value={search}
            onChange={(event) => setSearch(event.target.value)}
            sx={{ mb: 1 }}
          />
          <MemberTable
            label={translate(type === 'user' ? 'iam.members.users' : 'iam.members.groups')}
            rows={candidates.rows}
            total={candidates.total}
            isPending={candidates.isPending}
            error={candidates.error}
            controls={controls}
            selected={selected}
            onSelect={(members, isSelected) => setSelected((previous) => toggleSelection(previous, members, isSelected))}
            emptyText="iam.members.noCandidates"
            showEmail
          />
        </Box>
        {error && (
          <Alert severity="error" role="alert" sx={{ mt: 1 }}>
            {error}
          </Alert>
        )}
      </DialogContent>
      <PickerActions
        selectedText="iam.members.selected"
        closeText="iam.members.close"
        addText="iam.members.add"
        count={selected.size}
        busy={busy}
        onClose={onClose}
        onAdd={add}
      />
    </Dialog>
  );
}
