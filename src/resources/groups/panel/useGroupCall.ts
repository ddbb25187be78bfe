import { useState } from 'react';
import { useGroupCallError } from './usePagedRequest';

/**
 * A write from the group form's tabs (add, remove): busy while it runs, and its error as a message
 * to show (an authentication error signs out instead, SPEC 8). run() resolves true on success.
 * clear() drops the message once another action of the tab succeeds (docs/CONSOLE.md, "Errors and
 * messages").
 */
export function useGroupCall() {
  const handleError = useGroupCallError();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = async (call: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await call();
      return true;
    } catch (failure) {
      const message = await handleError(failure);
      if (message) setError(message);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clear: () => setError(undefined) };
}
