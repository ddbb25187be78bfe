import { useState } from 'react';
import { Alert, Box, Button, Stack, Typography } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import DeleteIcon from '@mui/icons-material/Delete';
import { useQueryClient } from '@tanstack/react-query';
import { Confirm, useNavigate, useNotify, useTranslate } from 'react-admin';
import type { PathContext } from '../../../session/session';
import { DisabledReason } from '../../generic/DisabledReason';
import { groups } from '../index';
import { AddMembersDialog } from './AddMembersDialog';
import { useMembersRemovalReason } from './lastAdministrator';
import { useGroupRows } from '../panel/pageControls';
import { useGroupCall } from '../panel/useGroupCall';
import { MemberTable, toggleSelection } from './MemberTable';
import { membersApi, type Member } from './membersApi';

interface MembersPanelProps {
  context: PathContext;
  group: { id: string; name?: string; displayName?: string };
}

/**
 * SPEC 2.10's Members tab: the group's members, paged, with Add (the modal) and Delete. It names
 * the group and leads back to the groups list (docs/CONSOLE.md, "Groups").
 */
export function MembersPanel({ context, group }: MembersPanelProps) {
  const translate = useTranslate();
  const notify = useNotify();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [selected, setSelected] = useState<Map<string, Member>>(new Map());
  const [adding, setAdding] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const { busy: removing, error, run, clear } = useGroupCall();
  const { controls, rows: members } = useGroupRows(
    (request) => membersApi.list(context, group.id, request),
    `${context.companyId}/${context.domainId}/${group.id}`,
  );

  const removeReason = useMembersRemovalReason(context, group.id, [...selected.values()], translate);

  // Who administers the domain may have changed: read it again.
  const changed = () => {
    members.reload();
    void queryClient.invalidateQueries({ queryKey: ['administrators'] });
  };

  const remove = async () => {
    if (await run(() => membersApi.remove(context, group.id, [...selected.values()]))) {
      notify('iam.members.removed', { type: 'info', messageArgs: { count: selected.size } });
      setSelected(new Map());
      changed();
    }
    setConfirming(false);
  };

  return (
    <>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1, flexWrap: 'wrap' }}>
        <Typography variant="h6" component="h2" sx={{ mr: 'auto', overflowWrap: 'anywhere' }}>
          {translate('iam.members.heading', { group: group.displayName || group.name || group.id })}
        </Typography>
        <Button startIcon={<ArrowBackIcon />} onClick={() => navigate(groups.routes.list)}>
          {translate('iam.members.back')}
        </Button>
      </Box>
      <Stack direction="row" spacing={1} sx={{ mb: 1 }}>
        <Button startIcon={<AddIcon />} variant="contained" onClick={() => setAdding(true)}>
          {translate('iam.members.add')}
        </Button>
        <DisabledReason reason={removeReason}>
          <Button
            startIcon={<DeleteIcon />}
            color="error"
            disabled={selected.size === 0 || removing || Boolean(removeReason)}
            onClick={() => setConfirming(true)}
          >
            {translate('iam.members.delete')}
          </Button>
        </DisabledReason>
      </Stack>
      {error && (
        <Alert severity="error" role="alert" sx={{ mb: 1 }}>
          {error}
        </Alert>
      )}
      <MemberTable
        label={translate('iam.groups.members')}
        rows={members.rows}
        total={members.total}
        isPending={members.isPending}
        error={members.error}
        controls={controls}
        selected={selected}
        onSelect={(rows, isSelected) => setSelected((previous) => toggleSelection(previous, rows, isSelected))}
        emptyText="iam.members.empty"
      />
      <Confirm
        isOpen={confirming}
        loading={removing}
        title="iam.members.removeTitle"
        content="iam.members.removeContent"
        translateOptions={{ count: selected.size }}
        confirm="iam.members.delete"
        cancel="iam.actions.cancel"
        onConfirm={remove}
        onClose={() => setConfirming(false)}
      />
      {adding && (
        <AddMembersDialog
          context={context}
          group={group}
          onClose={() => setAdding(false)}
          onAdded={(count) => {
            notify('iam.members.added', { type: 'info', messageArgs: { count } });
            // an earlier refusal is about a state this success has moved on from
            clear();
            changed();
          }}
        />
      )}
    </>
  );
}
