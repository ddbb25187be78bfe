import { registry } from '../resources/registry';
import { createDataProvider } from './dataProvider';

export { createDataProvider } from './dataProvider';
export type { Administrator, IamDataProvider, IamMeta } from './dataProvider';
export { MissingContextError } from './dataProvider';

export const dataProvider = createDataProvider({ resources: registry });
