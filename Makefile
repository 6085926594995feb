# keychainfs: the README's two commands are scripts/demo.sh and scripts/test.sh; make wraps them (and bench/run).
PREFIX ?= /usr/local

.PHONY: demo test format bench build release install install-files clean deb deb-check fuzz soak check-ecosystem

demo:
	scripts/demo.sh

test:
	scripts/test.sh

bench:
	bench/run

# Rewrites every Swift file in the repository's one layout (.swift-format); the tests check it.
format:
	scripts/format.sh

# libFuzzer with AddressSanitizer on every parser of outside bytes, FUZZ_SECONDS per target (default 120).
fuzz:
	fuzz/run.sh

# The long runs of the fs-operation fuzzer (SOAK_FS_OPS, default 2,000,000) and the many-process soak
# (SOAK_OPS per process, default 10,000), then the power-cut replay at SOAK_POWERCUT_SCALE; scripts/test.sh
# runs bounded versions of all three.
SOAK_FS_OPS ?= 2000000
SOAK_OPS ?= 10000
# The power-cut replay's workload multiplied (PowerCutTests; CI runs it at 1; each crash point rebuilds
# the vault, so the time grows with the square of the workload).
SOAK_POWERCUT_SCALE ?= 5
soak:
	swift build --product keychainfs
	python3 fuzz/fsfuzz.py --binary .build/debug/keychainfs --ops $(SOAK_FS_OPS)
	python3 fuzz/soak.py --binary .build/debug/keychainfs --processes 8 --ops $(SOAK_OPS)
	POWERCUT_SCALE=$(SOAK_POWERCUT_SCALE) KEYCHAINFS_TEST_FILTER=PowerCutTests scripts/test.sh

build:
	swift build

# A server package beside ours (Examples/ServerApp: swift-nio, swift-system, swift-certificates, Security,
# LocalAuthentication, KeychainTesting) built from clean with and without the documented module aliases,
# and run (scripts/check-ecosystem.sh; about 15 minutes). scripts/test.sh resolves its graph.
check-ecosystem:
	scripts/check-ecosystem.sh

HELPERS = git-credential-keychainfs docker-credential-keychainfs

release:
	swift build -c release --static-swift-stdlib --product keychainfs
	for helper in $(HELPERS); do swift build -c release --static-swift-stdlib --product $$helper || exit 1; done

install: release install-files

# Installs the binaries of BINDIR (default: the release build) and the rest without building anything.
BINDIR ?= .build/release
install-files:
	install -D -m 0755 $(BINDIR)/keychainfs $(DESTDIR)$(PREFIX)/bin/keychainfs
	for helper in $(HELPERS); do install -D -m 0755 $(BINDIR)/$$helper $(DESTDIR)$(PREFIX)/bin/$$helper || exit 1; done
	install -D -m 0755 mount-helpers/with-keychain $(DESTDIR)$(PREFIX)/bin/with-keychain
	install -D -m 0755 mount-helpers/mount.fuse.keychainfs $(DESTDIR)/sbin/mount.fuse.keychainfs
	ln -sf mount.fuse.keychainfs $(DESTDIR)/sbin/mount.keychainfs
	install -D -m 0644 mount-helpers/keychainfs@.service $(DESTDIR)$(PREFIX)/lib/systemd/user/keychainfs@.service
	install -d $(DESTDIR)$(PREFIX)/share/dbus-1/services
	sed 's|@BINDIR@|$(PREFIX)/bin|' mount-helpers/keychainfs.secrets.service.in > $(DESTDIR)$(PREFIX)/share/dbus-1/services/keychainfs.secrets.service
	chmod 0644 $(DESTDIR)$(PREFIX)/share/dbus-1/services/keychainfs.secrets.service
	install -D -m 0644 README.md $(DESTDIR)$(PREFIX)/share/doc/keychainfs/README.md
	install -d $(DESTDIR)$(PREFIX)/share/doc/keychainfs/docs
	install -m 0644 docs/*.md $(DESTDIR)$(PREFIX)/share/doc/keychainfs/docs/
	install -d $(DESTDIR)$(PREFIX)/share/doc/keychainfs/docs/reference
	install -m 0644 docs/reference/*.md $(DESTDIR)$(PREFIX)/share/doc/keychainfs/docs/reference/

# A .deb (scripts/make-deb.sh) from the static-stdlib release build; deb-check installs it for real with
# dpkg -i and removes it (root). CI (scripts/test.sh) runs both with DEB_CONFIG=debug: the same package
# from the debug build the tests just ran (on the toolchain's Swift runtime), as a full release build
# would not fit CI's 15 minutes.
DEB_CONFIG ?= release
deb:
	DEB_CONFIG=$(DEB_CONFIG) scripts/make-deb.sh

deb-check: deb
	scripts/deb-check.sh

clean:
	rm -rf .build dist
