import { useLocation, useTranslate, type RaRecord } from 'react-admin';
import type { Company, Domain } from '../../session/session';
import { useSession } from '../../session/useSession';
import { DeclaredFormScreen } from '../generic/DeclaredFormScreen';
import { isFormMode, type FormMode } from '../generic/formMode';
import { RecordTabs } from '../generic/RecordTabs';
import { MembersPanel } from './members/MembersPanel';
import { PermissionsPanel } from './permissions/PermissionsPanel';

interface GroupFormState {
  company?: Company;
  domain?: Domain;
  group?: RaRecord;
  mode?: unknown;
}

/**
 * The group form (docs/CONSOLE.md, "Groups"): tabs General (the declared fields, modes new / view / edit), Members and
 * Permissions (API scopes granted to the group; both an existing group only), and History (docs/CONSOLE.md, "History and
 * audit log"). Opened without state, it is a new group of the current domain.
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
  const tabGroup = group as { id: string; name?: string; displayName?: string } | undefined;

  return (
    <RecordTabs
      idPrefix="group"
      label={translate('resources.groups.name', { smart_count: 1 })}
      record={group}
      context={context}
      maxWidth="none"
      tabs={[
        {
          id: 'general',
          labelKey: 'iam.groups.general',
          framed: true,
          keepMounted: true,
          content: (
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
          ),
        },
        // an existing group's only
        { id: 'members', labelKey: 'iam.groups.members', disabled: !tabGroup, content: tabGroup && <MembersPanel context={context} group={tabGroup} /> },
        {
          id: 'permissions',
          labelKey: 'iam.groupPermissions.tab',
          disabled: !tabGroup,
          content: tabGroup && <PermissionsPanel context={context} group={tabGroup} />,
        },
      ]}
    />
  );
}
