import type { ReactElement } from 'react';
import { Tooltip } from '@mui/material';

/**
 * Says why an action is not offered (docs/CONSOLE.md, "Resources"). A disabled button gets no
 * pointer or focus events, so the tooltip sits on a span around it; the span takes keyboard focus
 * so the reason is reachable without a mouse. Without a reason the button is returned as is.
 */
export function DisabledReason({ reason, children }: { reason?: string; children: ReactElement }) {
  if (!reason) return children;
  return (
    <Tooltip title={reason} describeChild>
      <span tabIndex={0} style={{ display: 'inline-flex' }}>
        {children}
      </span>
    </Tooltip>
  );
}
