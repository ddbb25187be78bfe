/**
 * The side bar's menu (docs/CONSOLE.md, "Layout"): the dashboard template's tree, with the declared
 * resources' entries drawn from the registry. The template's own entries have no screen: their
 * targets fall through to the 404 page. `fullPage` targets leave the admin app (sign-in pages).
 */
import type { ComponentType } from 'react';
import DashboardIcon from '@mui/icons-material/Dashboard';
import PeopleIcon from '@mui/icons-material/People';
import GroupsIcon from '@mui/icons-material/Groups';
import AppsIcon from '@mui/icons-material/Apps';
import WorkIcon from '@mui/icons-material/Work';
import TaskIcon from '@mui/icons-material/TaskAlt';
import MailIcon from '@mui/icons-material/Mail';
import SettingsIcon from '@mui/icons-material/Settings';
import BuildIcon from '@mui/icons-material/Build';
import LockIcon from '@mui/icons-material/Lock';
import BusinessIcon from '@mui/icons-material/Business';
import WidgetsIcon from '@mui/icons-material/Widgets';
import { readableName } from '../i18n/readableName';
import { registry } from '../resources/registry';
import type { ResourceDeclaration } from '../resources/types';

export interface MenuLeaf {
  labelKey: string;
  /** What shows when labelKey has no translation (a declared type's readable name). */
  fallback?: string;
  to: string;
  /** Added to `to` by the link: a declared list's opens on its first page, unfiltered. */
  search?: string;
  fullPage?: boolean;
  /**
   * A template entry that opens a declared resource's list (Sync'ing results: the import jobs): it
   * shows, at its place, to those who may read that resource, and the resource has no entry of its own.
   */
  opens?: string;
}

export interface MenuEntry {
  id: string;
  labelKey: string;
  fallback?: string;
  icon: ComponentType;
  to?: string;
  search?: string;
  badgeKey?: string;
  children?: readonly MenuLeaf[];
}

/**
 * A side-bar link opens its list afresh (docs/CONSOLE.md, "Lists"): a query in the address is the
 * list's whole state, so this one sets none of the search, filters or sort the list's store keeps
 * from last time; the rows per page stay the person's choice (the list's own default).
 */
export const FRESH_LIST = '?page=1';

/** The list's entry and, for a soft-deletable type, the deleted list's. */
function leavesOf(declaration: ResourceDeclaration): MenuLeaf[] {
  const fallback = readableName(declaration.name);
  const { list, deleted } = declaration.routes;
  const leaves: MenuLeaf[] = [{ labelKey: declaration.labelKey, fallback, to: list, search: FRESH_LIST }];
  if (deleted) {
    leaves.push({ labelKey: declaration.menu?.deletedLabelKey ?? 'iam.statusList.deleted', to: deleted, search: FRESH_LIST });
  }
  return leaves;
}

/**
 * Declared resources join the template group their `menu.group` names, before its own entries;
 * the others get top-level entries after the template's resource groups (before Job Board). The
 * Menu gives only the declarations the person may read here (docs/CONSOLE.md, "Roles").
 */
export function menuTree(signedIn: boolean, declarations: readonly ResourceDeclaration[] = registry): readonly MenuEntry[] {
  const declared = declarations
    .filter((declaration) => !declaration.embeddedIn)
    .map((declaration, index) => ({ declaration, order: declaration.menu?.order ?? 1000 + index }))
    .sort((a, b) => a.order - b.order)
    .map(({ declaration }) => declaration);
  const template = templateTree(signedIn).map((entry) => (entry.children ? { ...entry, children: templateLeaves(entry.children, declared) } : entry));
  const opened = new Set(templateTree(signedIn).flatMap((entry) => (entry.children ?? []).flatMap((leaf) => (leaf.opens ? [leaf.opens] : []))));
  const groupIds = new Set(template.map((entry) => entry.id));
  const joined = template.map((entry) => {
    const mine = declared.filter((declaration) => declaration.menu?.group === entry.id && !opened.has(declaration.name));
    return mine.length ? { ...entry, children: [...mine.flatMap(leavesOf), ...(entry.children ?? [])] } : entry;
  });
  const ownEntries = declared
    .filter((declaration) => !opened.has(declaration.name))
    .filter((declaration) => !declaration.menu?.group || !groupIds.has(declaration.menu.group))
    .map((declaration): MenuEntry => {
      const leaves = leavesOf(declaration);
      const { labelKey, fallback, to, search } = leaves[0];
      return leaves.length === 1
        ? { id: declaration.name, labelKey, fallback, icon: declaration.icon, to, search }
        : { id: declaration.name, labelKey, fallback, icon: declaration.icon, children: leaves };
    });
  const at = joined.findIndex((entry) => entry.id === 'jobs');
  // a group whose every entry is of a resource the person may not read is left out
  const tree = [...joined.slice(0, at), ...ownEntries, ...joined.slice(at)];
  return tree.filter((entry) => !entry.children || entry.children.length > 0);
}

/** A group's template entries: one that opens a declared list goes there, and only for those who may read it. */
function templateLeaves(leaves: readonly MenuLeaf[], readable: readonly ResourceDeclaration[]): MenuLeaf[] {
  return leaves.flatMap((leaf) => {
    if (!leaf.opens) return [leaf];
    const declaration = readable.find((candidate) => candidate.name === leaf.opens);
    return declaration ? [{ ...leaf, to: declaration.routes.list, search: FRESH_LIST }] : [];
  });
}

/** The template's tree; the resource groups' declared entries are added by menuTree. */
function templateTree(signedIn: boolean): MenuEntry[] {
  return [
    {
      id: 'dashboard',
      labelKey: 'iam.menu.dashboard',
      icon: DashboardIcon,
      children: [
        { labelKey: 'iam.menu.main', to: '/dashboard' },
        { labelKey: 'iam.menu.analytics', to: '/analytics' },
        { labelKey: 'iam.menu.fintech', to: '/fintech' },
      ],
    },
    {
      id: 'users',
      labelKey: 'iam.menu.users',
      icon: PeopleIcon,
      children: [
        { labelKey: 'iam.menu.passwordReset', to: '/password-reset' },
        { labelKey: 'iam.menu.userSettings', to: '/user-settings' },
        // the import and export jobs (docs/CONSOLE.md, "Import and export")
        { labelKey: 'iam.menu.syncResults', to: '/syncing-results', opens: 'userJobs' },
      ],
    },
    {
      id: 'groups',
      labelKey: 'iam.menu.groups',
      icon: GroupsIcon,
      children: [
        { labelKey: 'iam.menu.general', to: '/groups-general' },
        { labelKey: 'iam.menu.groupSettings', to: '/group-settings' },
      ],
    },
    {
      id: 'enterprise',
      labelKey: 'iam.menu.enterpriseApplications',
      icon: AppsIcon,
      children: [],
    },
    { id: 'jobs', labelKey: 'iam.menu.jobBoard', icon: WorkIcon, to: '/job-board' },
    { id: 'tasks', labelKey: 'iam.menu.tasks', icon: TaskIcon, to: '/tasks' },
    { id: 'messages', labelKey: 'iam.menu.messages', icon: MailIcon, to: '/messages', badgeKey: 'iam.menu.messagesBadge' },
    {
      id: 'settings',
      labelKey: 'iam.menu.settings',
      icon: SettingsIcon,
      children: [
        { labelKey: 'iam.menu.myAccount', to: '/settings/account' },
        { labelKey: 'iam.menu.myNotifications', to: '/settings/notifications' },
        { labelKey: 'iam.menu.connectedApps', to: '/settings/apps' },
        { labelKey: 'iam.menu.plans', to: '/settings/plans' },
        { labelKey: 'iam.menu.billing', to: '/settings/billing' },
        { labelKey: 'iam.menu.feedback', to: '/settings/feedback' },
      ],
    },
    { id: 'utility', labelKey: 'iam.menu.utility', icon: BuildIcon, to: '/utility' },
    {
      id: 'authentication',
      labelKey: 'iam.menu.authentication',
      icon: LockIcon,
      children: signedIn
        ? [
            { labelKey: 'iam.menu.switchUser', to: '/logout', fullPage: true },
            { labelKey: 'iam.menu.resetPassword', to: '/reset-password', fullPage: true },
          ]
        : [
            { labelKey: 'iam.menu.signIn', to: '/login', fullPage: true },
            { labelKey: 'iam.menu.signUp', to: '/signup', fullPage: true },
          ],
    },
    {
      id: 'onboarding',
      labelKey: 'iam.menu.onboarding',
      icon: BusinessIcon,
      children: [],
    },
    { id: 'components', labelKey: 'iam.menu.components', icon: WidgetsIcon, to: '/components' },
  ];
}
