#!/usr/bin/env bash
# Makes sure Debian's chromium, which the portal's browser tests drive (chromedp), is
# installed; nothing is downloaded at test time.
set -euo pipefail

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if [ ! -x /usr/bin/chromium ]; then
  echo "browser: installing chromium from Debian packages" >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1 || {
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  }
fi
/usr/bin/chromium --version >/dev/null || { echo "browser: /usr/bin/chromium does not run" >&2; exit 1; }
