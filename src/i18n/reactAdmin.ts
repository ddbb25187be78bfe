/**
 * react-admin's English messages (ra-language-english) that its code in the first screen after
 * sign-in uses: the side bar's toggle, the skip link, the user menu, the theme toggle, the refresh
 * button, the loading, error, access-denied and authentication-error pages, and the notifications of
 * the session checks. Copied here so that the whole of ra-language-english, mostly the words of
 * lists, forms and dialogs, loads with the screens (screens.ts; docs/PERFORMANCE.md, "Console
 * bundle"). The list is every `ra.` key in the first screen's built chunks (those bench/bundle.ts
 * counts for it): after a react-admin upgrade, grep them for "ra\.[A-Za-z0-9_.]*" again.
 * src/i18n/screens.test.ts checks that each is still react-admin's own word.
 */
export const reactAdminFirstScreen = {
  ra: {
    action: {
      back: 'Go Back',
      close_menu: 'Close menu',
      open_menu: 'Open menu',
      refresh: 'Refresh',
      toggle_theme: 'Toggle light/dark mode',
    },
    auth: {
      auth_check_error: 'Please login to continue',
      logout: 'Logout',
      sign_in: 'Sign in',
      user_menu: 'Profile',
    },
    configurable: {
      customize: 'Customize',
    },
    message: {
      access_denied: "You don't have the right permissions to access this page",
      auth_error: 'An error occurred while validating the authentication token.',
      authentication_error: 'The authentication server returned an error and your credentials could not be checked.',
      error: "A client error occurred and your request couldn't be completed.",
      loading: 'Please wait',
    },
    navigation: {
      skip_nav: 'Skip to content',
    },
    notification: {
      i18n_error: 'Cannot load the translations for the specified language',
      logged_out: 'Your session has ended, please reconnect.',
      not_authorized: "You're not authorized to access this resource.",
    },
    page: {
      access_denied: 'Access denied',
      authentication_error: 'Authentication error',
      error: 'Something went wrong',
      loading: 'Loading',
    },
  },
};
