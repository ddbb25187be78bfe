import { registry } from '../resources/registry';
import { createDataProvider } from './dataProvider';

export { createDataProvider } from './dataProvider';
export type { IamDataProvider, IamMeta } from './dataProvider';

export const dataProvider = createDataProvider({ resources: registry });
