import type { ReactElement } from 'react';
import { Tooltip } from '@mui/material';

/**
 * Says why an action is not offered (docs/CONSOLE.md, "Resources"). A disabled button gets no
 * pointer or focus events, so the tooltip sits on a span around it; the span takes keyboard focus
 * while there is a reason, so the reason is reachable without a mouse. The span stays when the
 * reason goes, so the button is the same element whether it is offered or not.
 */
export function DisabledReason({ reason, children }: { reason?: string; children: ReactElement }) {
  return (
    <Tooltip title={reason ?? ''} describeChild>
      <span tabIndex={reason ? 0 : undefined} style={{ display: 'inline-flex' }}>
        {children}
      </span>
    </Tooltip>
  );
}
