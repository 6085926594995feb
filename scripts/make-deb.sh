#!/usr/bin/env bash
# Builds dist/keychainfs_VERSION_ARCH.deb: the keychainfs and credential-helper binaries (Swift stdlib linked
# statically), the mount helper as mount.fuse.keychainfs, the systemd user unit, man pages generated from the
# argument parser (keychainfs(1) and one per verb), bash/zsh/fish completions, the README and docs/. Depends: what
# dpkg-shlibdeps reports for the binaries, plus fuse3 (fusermount3).
# DEB_CONFIG=release (default, `make deb`): self-contained. DEB_CONFIG=debug (CI): the debug build the tests ran,
# as a from-scratch release build takes longer than CI's whole budget on 2 cores; its binaries use the Swift
# toolchain's shared runtime (a debug build does not link Foundation statically: the static archives' link
# order fails), which no Debian package provides, so dpkg-shlibdeps is told to skip those libraries only.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${DEB_VERSION:-0.1.0}
config=${DEB_CONFIG:-release}
[[ $config == release || $config == debug ]] || { echo "DEB_CONFIG must be release or debug" >&2; exit 1; }
arch=$(dpkg --print-architecture)
products=(keychainfs git-credential-keychainfs docker-credential-keychainfs)
static=(--static-swift-stdlib); shlibflags=()
if [[ $config == debug ]]; then
  static=()
  runtime="$(dirname "$(dirname "$(command -v swift)")")/lib/swift/linux"
  shlibflags=(--ignore-missing-info "-l$runtime")
fi
for product in "${products[@]}"; do swift build -c "$config" "${static[@]}" --product "$product"; done
bindir=$(swift build -c "$config" --show-bin-path)
root=.build/deb/root
rm -rf .build/deb && mkdir -p "$root/DEBIAN" dist
make --no-print-directory install-files BINDIR="$bindir" DESTDIR="$PWD/$root" PREFIX=/usr >/dev/null
bin="$root/usr/bin/keychainfs"

# Man pages: swift-argument-parser's generate-manual plugin, one page per command, always from the debug
# build: the plugin builds every target of the package first, and a release build refuses the fuzz
# harness's @testable imports (the pages come from the argument parser, the same in either build).
swift package plugin generate-manual --configuration debug --multi-page >/dev/null
pages=$(find .build/plugins -path '*GenerateManual*' -type d -name keychainfs | head -1)
[[ -n $pages && -f $pages/keychainfs.1 ]] || { echo "make-deb: generate-manual wrote no keychainfs.1" >&2; exit 1; }
mkdir -p "$root/usr/share/man/man1"
for page in "$pages"/*.1; do gzip -9n < "$page" > "$root/usr/share/man/man1/$(basename "$page").gz"; done

# Completions, from the binary itself.
install -d "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" "$root/usr/share/fish/vendor_completions.d"
"$bin" --generate-completion-script bash > "$root/usr/share/bash-completion/completions/keychainfs"
"$bin" --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_keychainfs"
"$bin" --generate-completion-script fish > "$root/usr/share/fish/vendor_completions.d/keychainfs.fish"

# Depends: dpkg-shlibdeps wants a debian/control beside it; a library no package provides is an error.
mkdir -p .build/deb/work/debian
printf 'Source: keychainfs\n\nPackage: keychainfs\nArchitecture: any\n' > .build/deb/work/debian/control
binaries=()
for product in "${products[@]}"; do binaries+=("$PWD/$root/usr/bin/$product"); done
shlibs=$(cd .build/deb/work && dpkg-shlibdeps "${shlibflags[@]}" -O "${binaries[@]}" | sed -n 's/^shlibs:Depends=//p')
[[ -n $shlibs ]] || { echo "make-deb: dpkg-shlibdeps reported no dependencies" >&2; exit 1; }
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
rm -f dist/keychainfs_*.deb
dpkg-deb --build --root-owner-group "$root" "dist/keychainfs_${version}_${arch}.deb" >/dev/null
echo "dist/keychainfs_${version}_${arch}.deb"
