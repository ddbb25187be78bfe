/** Full page navigations, behind an object so tests can observe them (jsdom cannot navigate). */
export const browser = {
  assign(url: string): void {
    window.location.assign(url);
  },
  replace(url: string): void {
    window.location.replace(url);
  },
  /**
   * Moves to a path of this console without loading the page again (main.tsx renders the page for
   * the new path): after sign-in, the admin app starts in the page that already runs, its code
   * fetched while the tokens were being exchanged.
   */
  within(path: string): void {
    window.history.replaceState(null, '', path);
    window.dispatchEvent(new Event(NAVIGATED));
  },
};

/** The event main.tsx listens to: the address changed without a page load (browser.within). */
export const NAVIGATED = 'iam:navigated';
