/**
 * Messages of the pages shown before sign-in (and the 404 page). Kept apart from en.ts, which
 * includes them, because these ship in the small sign-in bundle.
 */
export const signInMessages = {
  loading: 'Loading…',
  login: {
    title: 'Sign in to your account',
    organization: 'Organization (optional)',
    organizationHint: 'The company ID from your sign-in link. Leave it empty unless your administrator gave you one.',
    domain: 'Domain (optional)',
    domainHint: "Leave it empty for your company's primary domain.",
    email: 'Email',
    password: 'Password',
    remember: 'Remember me',
    forgot: 'Forgot your password?',
    terms: 'By signing in you agree to our Terms Of Use.',
    submit: 'Login',
    // the organization's connections (docs/CONSOLE.md, "Connections")
    connections: 'Or sign in with your organization\'s accounts:',
    connection: 'Sign in with %{name}',
    signupPrompt: "Don't have an account?",
    signup: 'Signup',
    account: 'Your account and security (second factors, recovery codes)',
    redirecting: 'Signing you in…',
    // Why the form is shown again: /login?reason=<code>; only these codes are shown (docs/CONSOLE.md "Sign-in form").
    reason: {
      expired: 'Your remembered sign-in is no longer valid. Sign in again.',
      ended: 'Your session was ended by the provider: you were signed out everywhere, or your rights changed. Sign in again.',
      wrong: 'Wrong email or password.',
      blocked: 'This account is blocked. Ask your administrator to unblock it.',
      throttled: 'Too many sign-in attempts. Try again later.',
      throttledFor: 'Too many sign-in attempts. Try again in %{wait}.',
    },
    // the throttle's wait (reason=throttled&retry=<seconds>)
    wait: {
      seconds: '%{n} seconds',
      second: '1 second',
      minutes: '%{n} minutes',
      minute: '1 minute',
    },
  },
  callback: {
    logging: 'Logging.....',
    loggedIn: 'Logged In.',
    message: 'Message: %{error}',
    login: 'LogIn',
    notAdministrator: {
      title: 'Not an administrator',
      text: 'Your account is not an administrator of company %{company}.',
      switchUser: 'Sign in as someone else',
      account: 'Your account and security',
    },
  },
  logout: {
    question: 'Do you want to logout now?',
    button: 'Log out',
  },
  notFound: {
    code: '404',
    title: 'Oops! There is something problem!',
    subtitle: 'Please try again later!',
    home: 'Go To Home',
  },
  notOffered: {
    signup: {
      title: 'Create an account',
      text: "Sign-up is not open for your organization: accounts are created by its administrators. Ask one of them to create yours, then sign in.",
    },
    resetPassword: {
      title: 'Reset your password',
      text: 'Password reset by e-mail is not available yet. Ask an administrator of your organization to set a new password for you.',
    },
    back: 'Back to sign-in',
  },
  error: {
    title: 'Something went wrong',
    text: 'The sign-in could not be completed.',
    login: 'Back to sign-in',
  },
};
