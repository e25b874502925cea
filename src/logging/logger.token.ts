/** Injection token of the application's pino logger. */
export const LOGGER = Symbol('LOGGER');
