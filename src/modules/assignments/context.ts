import type { AppContext } from '../../platform/context.js';
import type { LinkSigner } from './start-links.js';

/** The assignments module needs the start-link signer besides the shared context. */
export interface AssignmentsContext extends AppContext {
  signer: LinkSigner;
}
