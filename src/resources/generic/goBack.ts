/**
 * Back one screen (Close, Cancel, after a save). A record address opened in a new tab, or from a
 * bookmark, is the tab's first entry (react-router keeps its index in the history state): there is
 * no screen before it in the console, so the record's list is shown instead.
 */
export function goBack(navigate: (to: string | number) => unknown, list: string): void {
  const index = (window.history.state as { idx?: number } | null)?.idx;
  if (index === 0) navigate(list);
  else navigate(-1);
}
