#!/usr/bin/env bash
# Installs netlify-cli 26.2.0 (the last for Node 20) for the end-to-end target `netlify`, from
# the lockfile in .ci/netlify-cli/, into node_modules/.cache/netlify-cli/ (ignored by git, and
# emptied by `npm ci`, so run this after it). It is kept out of the project's own dependencies:
# its peer dependencies (@opentelemetry/api) conflict with the project's, and it is 420 MB that
# only this target needs. Skipped when the installed version is already the locked one.
set -euo pipefail
cd "$(dirname "$0")/.."

SOURCE=.ci/netlify-cli
DEST=node_modules/.cache/netlify-cli
VERSION=$(node -p "require('./$SOURCE/package.json').dependencies['netlify-cli']")

if [ -x "$DEST/node_modules/.bin/netlify" ] &&
  [ "$(node -p "require('./$DEST/node_modules/netlify-cli/package.json').version" 2>/dev/null)" = "$VERSION" ]; then
  echo "install-netlify-cli: netlify-cli $VERSION is already installed in $DEST"
  exit 0
fi

rm -rf "$DEST"
mkdir -p "$DEST"
cp "$SOURCE/package.json" "$SOURCE/package-lock.json" "$DEST/"
# --legacy-peer-deps: the lockfile was resolved with it (netlify-cli's own peer ranges overlap).
# Install scripts are not needed: netlify dev runs on the packages' JavaScript and prebuilt
# esbuild binaries (their optional dependencies).
(cd "$DEST" && npm ci --legacy-peer-deps --ignore-scripts --no-audit --no-fund --loglevel=error)
echo "install-netlify-cli: $("$DEST/node_modules/.bin/netlify" --version)"
