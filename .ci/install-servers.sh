#!/usr/bin/env bash
# Installs the web servers the end-to-end suite runs the emitted host configs on (nginx, Caddy,
# Apache httpd), from Debian's packages, only when a binary is missing. Debian's packages start
# and enable their system services on install; the suite starts its own foreground servers on
# loopback ports instead, so a policy-rc.d that refuses to start services is in place during the
# install (and removed afterwards when this script put it there).
set -euo pipefail

# Binary → package. nginx-light is enough (core + rewrite + headers); fall back to nginx where a
# release no longer ships the -light flavour.
declare -A PACKAGE=([nginx]=nginx-light [caddy]=caddy [apache2]=apache2)
# apache2 lives in /usr/sbin, which is not on every non-root PATH.
export PATH="$PATH:/usr/sbin:/sbin"

missing=()
for binary in nginx caddy apache2; do
  command -v "$binary" >/dev/null 2>&1 || missing+=("${PACKAGE[$binary]}")
done
if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-servers: nginx, caddy and apache2 are already installed"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
else
  SUDO=
fi

POLICY=/usr/sbin/policy-rc.d
placed_policy=false
if [ ! -e "$POLICY" ]; then
  # Exit status 101 means "action forbidden": invoke-rc.d then starts no service.
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$POLICY" >/dev/null
  $SUDO chmod 755 "$POLICY"
  placed_policy=true
fi
cleanup() { if $placed_policy; then $SUDO rm -f "$POLICY"; fi; }
trap cleanup EXIT

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
if [[ " ${missing[*]} " == *" nginx-light "* ]] && ! apt-cache show nginx-light >/dev/null 2>&1; then
  missing=("${missing[@]/nginx-light/nginx}")
fi
echo "install-servers: installing ${missing[*]}"
$SUDO apt-get install -y --no-install-recommends "${missing[@]}"

for binary in nginx caddy apache2; do
  command -v "$binary" >/dev/null 2>&1 || { echo "install-servers: $binary is still missing" >&2; exit 1; }
done
echo "install-servers: $(nginx -v 2>&1); $(caddy version); $(apache2 -v | head -1)"
