import { useEffect } from 'react';
import { useListContext } from 'react-admin';
import { useSession } from '../../session/useSession';

/**
 * react-admin keeps a list's selection in its store, so rows ticked before opening a form, or in
 * another company or domain, would still be ticked (and acted on by Delete) when the list shows
 * again. A list starts with nothing selected, and a company or domain switch clears it
 * (docs/CONSOLE.md, "Resources"). Render inside the list.
 */
export function SelectionReset() {
  const { onUnselectItems } = useListContext();
  const { company, domain } = useSession();
  useEffect(() => {
    onUnselectItems();
  }, [company?.id, domain?.id]); // not onUnselectItems: it changes with the selection it clears
  return null;
}
