/** Loaded by Notifications on the first notification. */
export { Notification as default } from 'react-admin';
