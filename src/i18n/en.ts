/**
 * English messages of the first screen after sign-in: the sign-in pages (signIn.ts), the layout, the
 * app bar, the side bar's menu, the dashboard, and what always-loaded code translates (the menu
 * labels the declarations name, the guidance without a domain). i18nProvider.ts merges them with the
 * react-admin words that screen uses (reactAdmin.ts). The words of the screens and dialogs that load
 * on use are in screens.ts, which loads with them (docs/PERFORMANCE.md, "Console bundle"): a key
 * belongs here only if something in the first screen translates it. The words are the ones
 * docs/CONSOLE.md quotes.
 */
import { signInMessages } from './signIn';

export const en = {
  iam: {
    appTitle: 'IAM Console',
    ...signInMessages,
    dashboard: {
      hello: 'Hello %{displayName}',
      happening: "Here is what's happening with your company %{company} today:",
      companies: 'Companies',
      domains: 'Domains',
      view: 'View',
      viewOf: 'View %{name}',
      allCompanies: 'All companies',
      allDomains: 'All domains',
      current: 'Current',
      primary: 'Primary',
      empty: 'Nothing to show yet.',
      error: 'This list could not be read.',
      retry: 'Try again',
    },
    layout: {
      sidebarHeading: '%{company} [%{domain}]',
      sidebarHeadingNoDomain: '%{company}',
      search: 'Search',
      notifications: 'Notifications',
      notificationSamples: {
        one: 'Welcome to the IAM Console.',
        two: 'Your domain settings were saved.',
      },
      help: 'Need help?',
      helpItems: {
        documentation: 'Documentation',
        support: 'Support site',
        contact: 'Contact us',
      },
      notFoundTitle: 'Page not found',
      settings: 'Settings',
      // the provider's account page, opened with the console's sign-in (src/layout/openAccountPage.ts)
      myAccount: 'My account',
      logout: 'Logout',
    },
    // the app bar's company and domain button (the dialog's words are in screens.ts)
    tenant: {
      place: '%{company} › %{domain}',
      placeNoDomain: '%{company} (no domain yet)',
      button: 'Company and domain: %{place}',
    },
    menu: {
      dashboard: 'Dashboard',
      main: 'Main',
      analytics: 'Analytics',
      fintech: 'Fintech',
      users: 'Users',
      allUsers: 'All users',
      deletedUsers: 'Deleted users',
      signInLogs: 'Sign-in logs',
      passwordReset: 'Password reset',
      userSettings: 'User settings',
      syncResults: "Sync'ing results",
      groups: 'Groups',
      allGroups: 'All groups',
      deletedGroups: 'Deleted groups',
      general: 'General',
      groupSettings: 'Group settings',
      enterpriseApplications: 'Enterprise Applications',
      applications: 'Applications',
      apis: 'APIs',
      connections: 'Connections',
      jobBoard: 'Job Board',
      tasks: 'Tasks',
      messages: 'Messages',
      messagesBadge: '4',
      settings: 'Settings',
      myAccount: 'My Account',
      myNotifications: 'My Notifications',
      connectedApps: 'Connected Apps',
      plans: 'Plans',
      billing: 'Billing & Invoices',
      feedback: 'Give Feedback',
      utility: 'Utility',
      authentication: 'Authentication',
      switchUser: 'Switch user',
      resetPassword: 'Reset Password',
      signIn: 'Sign in',
      signUp: 'Sign up',
      onboarding: 'Onboarding',
      companies: 'Companies',
      domains: 'Domains',
      components: 'Components',
      auditLog: 'Audit log',
      roles: 'Roles',
    },
    // a disabled button's tooltip: the roles that would allow it (docs/CONSOLE.md, "Roles")
    permissions: {
      needsRole: 'Needs the %{role} role',
      needsRoles: 'Needs the %{roles} or %{last} role',
      notAllowed: 'Your roles do not allow this here',
    },
    // the dashboard's and the theme's loading label
    list: {
      loading: 'Loading…',
    },
    // the app bar's search button (the dialog's words are in screens.ts)
    search: {
      tooltip: 'Search (Ctrl+K)',
    },
    noDomain: {
      title: 'Company %{company} has no domain yet',
      explanation:
        'Users, groups, applications and APIs belong to a domain. Create the first domain of this company to manage them.',
      create: 'Create the first domain',
    },
    // the side bar's label of a deleted list whose declaration names none
    statusList: {
      deleted: 'Deleted',
    },
  },
  ra: {
    notification: {
      // react-admin's own key for a create's success; CreatedNotice says where (docs/CONSOLE.md, "Resources")
      created: 'Created in %{place}',
    },
  },
};

export type Messages = typeof en;
