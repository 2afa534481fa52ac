// The command each web server's README gives for serving public/ on this machine: from the
// project folder, as any user, on a port an unprivileged user may bind, with every file the
// server writes (pid, temp files, Caddy's state) in a folder of the project that git ignores.
// The end-to-end suite starts the servers with these lines, as the READMEs print them.

/** The port of the example configurations; a test serves a copy with a free port instead. */
export const LOCAL_PORT = 8080;

/** Where nginx and Apache put their pid and temp files, relative to the project folder. */
export const NGINX_RUNTIME = '.nginx';
export const APACHE_RUNTIME = '.apache';
/** Caddy's HOME and XDG folders: its autosaved config, its certificates, the empty .step it creates. */
const CADDY_STATE = '.caddy';

export const LOCAL_COMMANDS = {
  nginx: `mkdir -p ${NGINX_RUNTIME} && /usr/sbin/nginx -p "$PWD" -e stderr -c targets/nginx/nginx.conf`,
  caddy: `API_ROOT=$PWD/public HOME=$PWD/${CADDY_STATE} XDG_CONFIG_HOME=$PWD/${CADDY_STATE} XDG_DATA_HOME=$PWD/${CADDY_STATE} caddy run --config targets/caddy/Caddyfile --adapter caddyfile`,
  apache: `mkdir -p ${APACHE_RUNTIME} && API_ROOT=$PWD/public /usr/sbin/apache2 -d "$PWD" -f targets/apache/httpd.conf -DFOREGROUND`,
} as const;

/** The README paragraph that introduces the command; the tests find the command after it. */
export const LOCAL_HEADING = '**On this machine.**';
