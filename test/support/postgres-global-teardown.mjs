// Removes the servers postgres-global-setup.mjs started.
export { teardown as default } from './postgres-global-setup.mjs';
