/**
 * The side bar's menu (SPEC 2.6). Most entries come from the dashboard template and have no screen:
 * their targets fall through to the 404 page. `fullPage` targets leave the admin app (sign-in pages).
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

export interface MenuLeaf {
  labelKey: string;
  to: string;
  fullPage?: boolean;
}

export interface MenuEntry {
  id: string;
  labelKey: string;
  icon: ComponentType;
  to?: string;
  badgeKey?: string;
  children?: readonly MenuLeaf[];
}

export function menuTree(signedIn: boolean): readonly MenuEntry[] {
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
        { labelKey: 'iam.menu.allUsers', to: '/users' },
        { labelKey: 'iam.menu.deletedUsers', to: '/users-deleted' },
        { labelKey: 'iam.menu.signInLogs', to: '/sign-in-logs' },
        { labelKey: 'iam.menu.passwordReset', to: '/password-reset' },
        { labelKey: 'iam.menu.userSettings', to: '/user-settings' },
        { labelKey: 'iam.menu.syncResults', to: '/syncing-results' },
      ],
    },
    {
      id: 'groups',
      labelKey: 'iam.menu.groups',
      icon: GroupsIcon,
      children: [
        { labelKey: 'iam.menu.allGroups', to: '/groups' },
        { labelKey: 'iam.menu.deletedGroups', to: '/groups-deleted' },
        { labelKey: 'iam.menu.general', to: '/groups-general' },
        { labelKey: 'iam.menu.groupSettings', to: '/group-settings' },
      ],
    },
    {
      id: 'enterprise',
      labelKey: 'iam.menu.enterpriseApplications',
      icon: AppsIcon,
      children: [
        { labelKey: 'iam.menu.applications', to: '/applications' },
        { labelKey: 'iam.menu.apis', to: '/apis' },
      ],
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
            { labelKey: 'iam.menu.resetPassword', to: '/reset-password' },
          ]
        : [
            { labelKey: 'iam.menu.signIn', to: '/login', fullPage: true },
            { labelKey: 'iam.menu.signUp', to: '/signup' },
          ],
    },
    {
      id: 'onboarding',
      labelKey: 'iam.menu.onboarding',
      icon: BusinessIcon,
      children: [
        { labelKey: 'iam.menu.companies', to: '/onboarding-companies' },
        { labelKey: 'iam.menu.domains', to: '/onboarding-domains' },
      ],
    },
    { id: 'components', labelKey: 'iam.menu.components', icon: WidgetsIcon, to: '/components' },
  ];
}
