export type MemberType = 'user' | 'group';

/** A member of a group, or a candidate of the Add dialog: a user and a group may share an id. */
export interface Member {
  id: string;
  displayName: string;
  type: MemberType;
  email?: string;
}

/** What names a member in a removal: its id and type. */
export const memberRef = ({ id, type }: Member) => ({ id, type });
