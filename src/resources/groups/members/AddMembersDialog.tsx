import { useState } from 'react';
import { Alert, Box, Dialog, DialogContent, DialogTitle, Tab, Tabs, TextField } from '@mui/material';
import { useTranslate } from 'react-admin';
import type { PathContext } from '../../../session/session';
import { groupMemberCandidates, groupMembers } from '../index';
import { PickerActions } from '../panel/PickerActions';
import { groupMeta, useCreateMany, useErrorText, useGroupList } from '../panel/useGroupList';
import type { Member, MemberType } from './member';
import { MemberTable, toggleSelection } from './MemberTable';

interface AddMembersDialogProps {
  context: PathContext;
  group: { id: string; displayName?: string; name?: string };
  onClose: () => void;
  onAdded: (count: number) => void;
}

/**
 * The Add modal (docs/CONSOLE.md, "Groups"): tabs Users and Groups offer what the provider's candidates call returns
 * (active, not yet members, never the group itself nor a group that would make a cycle). The
 * selection spans both tabs and every page; Add posts it, Close and Escape leave.
 */
export function AddMembersDialog({ context, group, onClose, onAdded }: AddMembersDialogProps) {
  const translate = useTranslate();
  const [type, setType] = useState<MemberType>('user');
  const [search, setSearch] = useState('');
  const [selected, setSelected] = useState<Map<string, Member>>(new Map());
  const candidates = useGroupList<Member>(groupMemberCandidates, context, group.id, { type });
  const adding = useCreateMany(groupMembers.name);
  const error = useErrorText()(adding.error);

  const add = async () => {
    const chosen = [...selected.values()].map(({ id, displayName, type: memberType }) => ({ id, displayName, type: memberType }));
    try {
      await adding.mutateAsync({ data: chosen, meta: groupMeta(context, group.id) });
      onAdded(chosen.length);
      onClose();
    } catch {
      // the refusal shows in the dialog
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
            candidates.setPage(1);
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
            onChange={(event) => {
              setSearch(event.target.value);
              // react-admin waits for typing to pause, then asks again from page 1
              const q = event.target.value.trim();
              candidates.setFilters(q ? { q } : {}, {});
            }}
            sx={{ mb: 1 }}
          />
          <MemberTable
            label={translate(type === 'user' ? 'iam.members.users' : 'iam.members.groups')}
            list={candidates}
            declaration={groupMemberCandidates}
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
        busy={adding.isPending}
        onClose={onClose}
        onAdd={add}
      />
    </Dialog>
  );
}
