#!/bin/sh
# Renders assets/icon.svg to assets/icon.png (256×256, transparent corners) with headless
# Chromium (ImageMagick here has no SVG reader). The PNG is what the binary embeds as its
# window icon and what the .desktop file points at.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp icon.svg "$tmp/"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --default-background-color=00000000 --window-size=256,256 \
  --screenshot="$tmp/icon.png" "file://$tmp/icon.svg" 2>/dev/null
mv "$tmp/icon.png" icon.png
echo "wrote $(pwd)/icon.png"
