import { useEffect, useState } from 'react';
import {
  Alert,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Tab,
  Tabs,
  TextField,
  Typography,
} from '@mui/material';
import { useTranslate } from 'react-admin';
import type { PathContext } from '../../../session/session';
import { MemberTable } from './MemberTable';
import { membersApi, type Member, type MemberType } from './membersApi';
import { toggleSelection, usePageControls } from './usePageControls';
import { useGroupCallError, usePagedRequest } from './usePagedRequest';

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
  const handleError = useGroupCallError();
  const [type, setType] = useState<MemberType>('user');
  const [search, setSearch] = useState('');
  const [q, setQ] = useState('');
  const controls = usePageControls();
  const [selected, setSelected] = useState<Map<string, Member>>(new Map());
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string>();

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
    setSaving(true);
    setError(undefined);
    try {
      await membersApi.add(context, group.id, [...selected.values()]);
      onAdded(selected.size);
      onClose();
    } catch (failure) {
      const message = await handleError(failure);
      if (message) setError(message);
    } finally {
      setSaving(false);
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
      <DialogActions>
        <Typography variant="body2" sx={{ mr: 'auto', ml: 2 }} aria-live="polite">
          {translate('iam.members.selected', { count: selected.size })}
        </Typography>
        <Button onClick={onClose}>{translate('iam.members.close')}</Button>
        <Button variant="contained" disabled={selected.size === 0 || saving} onClick={add}>
          {translate('iam.members.add')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
