/** Every message key of a tree, with its message: 'iam.users.listTitle' → 'Users' (the i18n tests). */
export function messagesOf(tree: object, prefix = ''): Map<string, string> {
  const all = new Map<string, string>();
  for (const [name, value] of Object.entries(tree)) {
    if (typeof value === 'string') all.set(`${prefix}${name}`, value);
    else for (const [key, message] of messagesOf(value as object, `${prefix}${name}.`)) all.set(key, message);
  }
  return all;
}
