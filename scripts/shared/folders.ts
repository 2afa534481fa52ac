// The project's folder that the build writes the API into, by default: the one place it is named,
// for the settings' default, the review's side read at a git revision and the targets' settings
// that name the folder to deploy.

export const DEFAULT_OUTPUT_FOLDER = 'public';
