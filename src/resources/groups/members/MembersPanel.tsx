import { useState } from 'react';
import { useLocation, useSearchParams } from 'react-router-dom';
import { Alert, Box, Button, MenuItem, Stack, TextField, Typography } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import DeleteIcon from '@mui/icons-material/Delete';
import { useQueryClient } from '@tanstack/react-query';
import { Confirm, ListContextProvider, useDeleteMany, useNavigate, useNotify, useTranslate } from 'react-admin';
import type { PathContext } from '../../../session/session';
import { DisabledReason } from '../../generic/DisabledReason';
import { DeclarationContext, useDeclaration } from '../../generic/DeclarationContext';
import { ExportCsvButton } from '../../generic/ExportCsvButton';
import { memberHref } from '../../generic/recordLink';
import { useAllowed } from '../../generic/useAllowed';
import { useMembershipReason } from '../../generic/principalRights';
import { groupMembers } from '../index';
import { groupMeta, useErrorText, useGroupList } from '../panel/useGroupList';
import { AddMembersDialog } from './AddMembersDialog';
import { useMembersRemovalReason } from './lastAdministrator';
import { memberRef, type Member } from './member';
import { MemberTable, toggleSelection } from './MemberTable';

/** What the Members tab filters by: the provider's search, the member type and the e-mail domain. */
export interface MemberFilterValues {
  q: string;
  type: '' | 'user' | 'group';
  emailDomain: string;
}

/** The list filter of these values: the set ones, trimmed (an empty box filters nothing). */
export function memberFilter(values: MemberFilterValues): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values)
      .map(([name, value]) => [name, value.trim()])
      .filter(([, value]) => value !== ''),
  );
}

/**
 * The filter an address carries (`&members={"emailDomain":"globex.com"}`, docs/CONSOLE.md, "Groups"),
 * so a filtered Members tab is a link; anything else in it is ignored.
 */
export function membersFromAddress(text: string | null): MemberFilterValues {
  let given: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(text ?? '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) given = parsed;
  } catch {
    // not JSON: no filter
  }
  const textOf = (value: unknown) => (typeof value === 'string' ? value : '');
  const type = given.type === 'user' || given.type === 'group' ? given.type : '';
  return { q: textOf(given.q), type, emailDomain: textOf(given.emailDomain) };
}

/** The search box, the type and the e-mail domain above the members (docs/CONSOLE.md, "Groups"). */
function MemberFilters({ values, onChange }: { values: MemberFilterValues; onChange: (values: MemberFilterValues) => void }) {
  const translate = useTranslate();
  const set = (name: keyof MemberFilterValues) => (event: { target: { value: string } }) => onChange({ ...values, [name]: event.target.value });
  return (
    <Box role="search" aria-label={translate('iam.members.filtersLabel')} sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', mb: 1 }}>
      {/* one row on a laptop (the theme's inputs are full width), wrapping on a phone */}
      <TextField type="search" size="small" fullWidth={false} label={translate('iam.members.search')} value={values.q} onChange={set('q')} sx={{ flex: '2 1 240px' }} />
      <TextField select size="small" fullWidth={false} label={translate('iam.members.type')} value={values.type} onChange={set('type')} sx={{ flex: '0 1 200px', minWidth: 160 }}>
        <MenuItem value="">{translate('iam.members.anyType')}</MenuItem>
        <MenuItem value="user">{translate('iam.members.users')}</MenuItem>
        <MenuItem value="group">{translate('iam.members.groups')}</MenuItem>
      </TextField>
      <TextField
        type="search"
        size="small"
        label={translate('iam.members.emailDomain')}
        placeholder={translate('iam.members.emailDomainHelp')}
        value={values.emailDomain}
        onChange={set('emailDomain')}
        fullWidth={false}
        sx={{ flex: '1 1 200px' }}
      />
    </Box>
  );
}

interface MembersPanelProps {
  context: PathContext;
  group: { id: string; name?: string; displayName?: string };
}

/**
 * The Members tab (docs/CONSOLE.md, "Groups"): the group's members (the embedded groupMembers
 * resource), paged, with Add (the modal) and Delete. It names the group and leads back to the
 * groups list. The members are filtered by search, type and e-mail domain (kept in the address,
 * so a filtered tab is a link), show their e-mail, link to their own records, and export as CSV as filtered.
 */
export function MembersPanel({ context, group }: MembersPanelProps) {
  const translate = useTranslate();
  const notify = useNotify();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { routes } = useDeclaration();
  const [selected, setSelected] = useState<Map<string, Member>>(new Map());
  const [adding, setAdding] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [address, setAddress] = useSearchParams();
  const { state } = useLocation();
  // read from the address once, when the tab opens; then the tab writes it
  const [filters, setFilterValues] = useState<MemberFilterValues>(() => membersFromAddress(address.get('members')));
  const members = useGroupList<Member>(groupMembers, context, group.id, undefined, memberFilter(filters));
  const filtering = Object.keys(memberFilter(filters)).length > 0;
  const changeFilters = (values: MemberFilterValues) => {
    setFilterValues(values);
    // from page 1, once typing pauses (useGroupList's debounce)
    members.setFilters(memberFilter(values), {});
    setAddress(
      (previous) => {
        const next = new URLSearchParams(previous);
        const set = memberFilter(values);
        if (Object.keys(set).length) next.set('members', JSON.stringify(set));
        else next.delete('members');
        return next;
      },
      // the screen's navigation state (the group, its company and domain) stays
      { replace: true, state },
    );
  };
  const [deleteMany, removal] = useDeleteMany();
  const error = useErrorText()(removal.error);

  const mayAdd = useAllowed('create', groupMembers.name);
  const mayRemove = useAllowed('delete', groupMembers.name);
  // a group that gives a role takes and loses members only by someone who may give that role
  const membershipReason = useMembershipReason(context, group.id);
  const addReason = mayAdd.reason ?? membershipReason;
  const ruleReason = useMembersRemovalReason(context, group.id, [...selected.values()], translate);
  const removeReason = mayRemove.reason ?? membershipReason ?? ruleReason;

  // Who administers the domain may have changed: read it again.
  const administratorsChanged = () => void queryClient.invalidateQueries({ queryKey: ['administrators'] });

  const remove = async () => {
    const chosen = [...selected.values()];
    try {
      await deleteMany(
        groupMembers.name,
        { ids: chosen.map((member) => member.id), meta: groupMeta(context, group.id, { body: chosen.map(memberRef) }) },
        { returnPromise: true },
      );
      notify('iam.members.removed', { type: 'info', messageArgs: { count: chosen.length } });
      setSelected(new Map());
      administratorsChanged();
    } catch {
      // the refusal shows above the table until a later success
    }
    setConfirming(false);
  };

  return (
    <>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1, flexWrap: 'wrap' }}>
        <Typography variant="h6" component="h2" sx={{ mr: 'auto', overflowWrap: 'anywhere' }}>
          {translate('iam.members.heading', { group: group.displayName || group.name || group.id })}
        </Typography>
        <Button startIcon={<ArrowBackIcon />} onClick={() => navigate(routes.list)}>
          {translate('iam.members.back')}
        </Button>
      </Box>
      <Stack direction="row" spacing={1} sx={{ mb: 1 }}>
        <DisabledReason reason={addReason}>
          <Button startIcon={<AddIcon />} variant="contained" disabled={!mayAdd.allowed || Boolean(membershipReason)} onClick={() => setAdding(true)}>
            {translate('iam.members.add')}
          </Button>
        </DisabledReason>
        <DisabledReason reason={removeReason}>
          <Button
            startIcon={<DeleteIcon />}
            color="error"
            disabled={selected.size === 0 || removal.isPending || !mayRemove.allowed || Boolean(removeReason)}
            onClick={() => setConfirming(true)}
          >
            {translate('iam.members.delete')}
          </Button>
        </DisabledReason>
        <ListContextProvider value={members}>
          {/* the export's headers are the members' (resources.groupMembers), not the groups' */}
          <DeclarationContext.Provider value={groupMembers}>
            <ExportCsvButton
              meta={groupMeta(context, group.id)}
              columns={['id', 'displayName', 'email', 'type']}
              filename={`members-${group.id}`}
            />
          </DeclarationContext.Provider>
        </ListContextProvider>
      </Stack>
      <MemberFilters values={filters} onChange={changeFilters} />
      {error && (
        <Alert severity="error" role="alert" sx={{ mb: 1 }}>
          {error}
        </Alert>
      )}
      <MemberTable
        label={translate('iam.groups.members')}
        list={members}
        declaration={groupMembers}
        selected={selected}
        onSelect={(rows, isSelected) => setSelected((previous) => toggleSelection(previous, rows, isSelected))}
        emptyText={filtering ? 'iam.members.noMatch' : 'iam.members.empty'}
        showEmail
        linkOf={(member) => memberHref(member, context)}
      />
      <Confirm
        isOpen={confirming}
        loading={removal.isPending}
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
            removal.reset();
            administratorsChanged();
          }}
        />
      )}
    </>
  );
}
