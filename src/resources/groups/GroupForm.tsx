import { useState } from 'react';
import { Box, Card, CardContent, Tab, Tabs } from '@mui/material';
import { useLocation, useTranslate, type RaRecord } from 'react-admin';
import type { Company, Domain } from '../../session/session';
import { useSession } from '../../session/useSession';
import { DeclaredFormScreen } from '../generic/DeclaredFormScreen';
import { isFormMode, type FormMode } from '../generic/formMode';
import { MembersPanel } from './members/MembersPanel';
import { PermissionsPanel } from './permissions/PermissionsPanel';

interface GroupFormState {
  company?: Company;
  domain?: Domain;
  group?: RaRecord;
  mode?: unknown;
}

type GroupTab = 'general' | 'members' | 'permissions';

/**
 * The group form (docs/CONSOLE.md, "Groups"): tabs General (the declared fields, modes new / view / edit), Members and
 * Permissions (issue 6: API scopes granted to the group; both an existing group only). Opened without state, it is a new group of the current domain.
 */
export default function GroupForm() {
  const translate = useTranslate();
  const session = useSession();
  const state = (useLocation().state ?? {}) as GroupFormState;
  const requested: FormMode = isFormMode(state.mode) ? state.mode : 'new';
  const group = requested === 'new' ? undefined : state.group;
  const mode: FormMode = group ? requested : 'new';
  const company = state.company ?? session.company;
  const domain = state.domain ?? session.domain;
  const context = { companyId: company?.id ?? '', domainId: domain?.id ?? '' };
  const [tab, setTab] = useState<GroupTab>('general');

  const tabProps = (value: GroupTab) => ({ value, id: `group-tab-${value}`, 'aria-controls': `group-panel-${value}` });

  return (
    <Box sx={{ mt: 2 }}>
      <Tabs value={tab} onChange={(_event, value: GroupTab) => setTab(value)} aria-label={translate('resources.groups.name', { smart_count: 1 })}>
        <Tab label={translate('iam.groups.general')} {...tabProps('general')} />
        <Tab label={translate('iam.groups.members')} disabled={!group} {...tabProps('members')} />
        <Tab label={translate('iam.groupPermissions.tab')} disabled={!group} {...tabProps('permissions')} />
      </Tabs>
      <Box role="tabpanel" id="group-panel-general" aria-labelledby="group-tab-general" hidden={tab !== 'general'}>
        <DeclaredFormScreen
          initialMode={mode}
          record={group}
          meta={{ pathContext: context }}
          nameField="name"
          titles={{
            new: translate('iam.groups.newTitle'),
            view: translate('iam.groups.viewTitle'),
            edit: translate('iam.groups.editTitle'),
          }}
        />
      </Box>
      {group && tab === 'members' && (
        <Box role="tabpanel" id="group-panel-members" aria-labelledby="group-tab-members">
          <Card sx={{ mt: 2 }}>
            <CardContent>
              <MembersPanel context={context} group={group as { id: string; name?: string; displayName?: string }} />
            </CardContent>
          </Card>
        </Box>
      )}
      {group && tab === 'permissions' && (
        <Box role="tabpanel" id="group-panel-permissions" aria-labelledby="group-tab-permissions">
          <Card sx={{ mt: 2 }}>
            <CardContent>
              <PermissionsPanel context={context} group={group as { id: string; name?: string; displayName?: string }} />
            </CardContent>
          </Card>
        </Box>
      )}
    </Box>
  );
}
