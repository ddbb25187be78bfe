/** Every resource the console knows. A new resource type is one folder and one line here. */
import { companies } from './companies';
import { domains } from './domains';
import { users } from './users';
import { groups } from './groups';
import { applications } from './applications';
import { apis, permissionScopes } from './apis';
import type { ResourceDeclaration } from './types';

export const registry: readonly ResourceDeclaration[] = [companies, domains, users, groups, applications, apis, permissionScopes];
