import { ConfigError } from '@gateway/platform';

/** The ConfigError `read` throws (loading a config, building a module); anything else, or nothing, fails. */
export function configErrorOf(read: () => unknown): ConfigError {
  try {
    read();
  } catch (err) {
    if (err instanceof ConfigError) {
      return err;
    }
    throw err;
  }
  throw new Error('the configuration was accepted');
}
