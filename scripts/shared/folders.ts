// The project's folder that the build writes the API into, by default: the one place it is named,
// for the settings' default, the review's side read at a git revision and the targets' settings
// that name the folder to deploy. And the settings file's default name, which the commands read
// and the build names in its JSON Schema.

export const DEFAULT_OUTPUT_FOLDER = 'public';

export const SETTINGS_FILE = 'static-api.config.json';
