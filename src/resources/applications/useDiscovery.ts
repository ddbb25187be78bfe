import { useEffect, useState } from 'react';
import { discoveryUrl, type Discovery } from './quickStart';

/** The provider's OpenID discovery document, for the Quick Start snippets. */
export function useDiscovery(): { discovery?: Discovery; error?: string } {
  const [result, setResult] = useState<{ discovery?: Discovery; error?: string }>({});
  useEffect(() => {
    let current = true;
    fetch(discoveryUrl(), { headers: { Accept: 'application/json' } })
      .then(async (response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        return (await response.json()) as Discovery;
      })
      .then((discovery) => current && setResult({ discovery }))
      .catch((error: Error) => current && setResult({ error: error.message }));
    return () => {
      current = false;
    };
  }, []);
  return result;
}
