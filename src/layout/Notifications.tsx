import { lazy, Suspense, useState } from 'react';
import { useNotificationContext } from 'react-admin';

// react-admin's snackbar (Snackbar, SnackbarContent, undo handling) loads with the first notification.
const Notification = lazy(() => import('./NotificationSnackbar'));

/**
 * react-admin's <Notification>, mounted once the first notification is queued and kept mounted
 * from then on (it takes the queued notifications itself, and its close animation runs as before).
 */
export function Notifications() {
  const { notifications } = useNotificationContext();
  const [needed, setNeeded] = useState(false);
  if (!needed && notifications.length > 0) setNeeded(true);
  return needed ? (
    <Suspense fallback={null}>
      <Notification />
    </Suspense>
  ) : null;
}
