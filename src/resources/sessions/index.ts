import LoginIcon from '@mui/icons-material/Login';
import type { PathContext } from '../../session/session';
import type { ResourceDeclaration } from '../types';

/** A user's path, the user's id being the path context's parent id. */
const userPath = (context: PathContext) =>
  `companys/${encodeURIComponent(context.companyId)}/domainNames/${encodeURIComponent(context.domainId)}/users/${encodeURIComponent(context.parentId ?? '')}`;

/**
 * A user's live sessions (docs/CONSOLE.md, "A user's sessions"): one per sign-in still able to
 * refresh, most recently used first. Shown in the user screen's Sessions tab (sessions/UserSessions),
 * never on a route of its own; a removal revokes the sign-in.
 */
export const sessions: ResourceDeclaration = {
  name: 'sessions',
  labelKey: 'iam.sessions.tab',
  icon: LoginIcon,
  embeddedIn: 'users',
  // revoked, not purged: `sessions:revoke`
  permission: 'sessions',
  paths: { collection: (context) => `${userPath(context)}/sessions` },
  actions: { signOutEverywhere: (context) => `${userPath(context)}/signOutEverywhere` },
  fields: [
    { source: 'clientName', kind: 'text', fallback: 'clientId', sortable: false },
    { source: 'createdAt', kind: 'dateTime' },
    { source: 'lastUsedAt', kind: 'dateTime' },
    { source: 'lastIp', kind: 'text', fallback: 'ip', sortable: false },
    { source: 'userAgent', kind: 'text', truncate: 32, sortable: false },
  ],
  listColumns: ['clientName', 'createdAt', 'lastUsedAt', 'lastIp', 'userAgent'],
  formFields: [],
  emptyKeys: { none: 'iam.sessions.empty', filtered: 'iam.sessions.empty' },
  defaultSort: { field: 'lastUsedAt', order: 'DESC' },
  pageSize: 15,
  pageWindow: 10,
  routes: { list: '/users', form: '/users-new' },
};
