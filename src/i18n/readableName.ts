/**
 * A field or resource name as a label, for names with no translation (docs/CONSOLE.md,
 * "Resources"): "displayName" reads "Display Name", "client_id" "Client Id", "devices" "Devices".
 */
export function readableName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter(Boolean)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join(' ');
}
