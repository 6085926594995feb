#!/usr/bin/env bash
# Builds dist/keychainfs_VERSION_ARCH.deb from the release build (make release): the static-stdlib binaries,
# the mount helper as mount.fuse.keychainfs, the systemd user unit, man pages generated from the argument
# parser (keychainfs(1) and one per verb), bash/zsh/fish completions and the README. Depends: what
# dpkg-shlibdeps reports for the binaries, plus fuse3 (fusermount3).
set -euo pipefail
cd "$(dirname "$0")/.."
version=${DEB_VERSION:-0.1.0}
arch=$(dpkg --print-architecture)
root=.build/deb/root
rm -rf .build/deb && mkdir -p "$root/DEBIAN" dist
make --no-print-directory install DESTDIR="$PWD/$root" PREFIX=/usr >/dev/null
bin="$root/usr/bin/keychainfs"

# Man pages: swift-argument-parser's generate-manual plugin, one page per command.
swift package plugin --allow-writing-to-package-directory generate-manual --product keychainfs --multi-page --output-directory .build/deb/man >/dev/null
mkdir -p "$root/usr/share/man/man1"
for page in .build/deb/man/*.1; do gzip -9n < "$page" > "$root/usr/share/man/man1/$(basename "$page").gz"; done

# Completions, from the binary itself.
install -d "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" "$root/usr/share/fish/vendor_completions.d"
"$bin" --generate-completion-script bash > "$root/usr/share/bash-completion/completions/keychainfs"
"$bin" --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_keychainfs"
"$bin" --generate-completion-script fish > "$root/usr/share/fish/vendor_completions.d/keychainfs.fish"

# Depends: dpkg-shlibdeps wants a debian/control beside it.
mkdir -p .build/deb/work/debian
printf 'Source: keychainfs\n\nPackage: keychainfs\nArchitecture: any\n' > .build/deb/work/debian/control
binaries=$(for f in "$PWD/$root"/usr/bin/*; do [[ -f $f && $(head -c4 "$f" | tail -c3) == ELF ]] && echo "$f"; done)
shlibs=$(cd .build/deb/work && dpkg-shlibdeps -O $binaries 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
size=$(du -sk "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<CONTROL
Package: keychainfs
Version: $version
Architecture: $arch
Maintainer: keychainfs developers <keychainfs@localhost>
Installed-Size: $size
Depends: $shlibs, fuse3
Section: utils
Priority: optional
Description: Apple's data-protection keychain on Linux, mounted with FUSE
 A vault with the keychain's semantics (item classes, accessibility, device lock) mounted as a
 filesystem, the macOS security verbs, run/inject for secrets in workflows, per-application access,
 and credential helpers for git and Docker.
CONTROL
dpkg-deb --build --root-owner-group "$root" "dist/keychainfs_${version}_${arch}.deb" >/dev/null
echo "dist/keychainfs_${version}_${arch}.deb"
