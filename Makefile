# keychainfs: the README's two commands are scripts/demo.sh and scripts/test.sh; make wraps them (and bench/run).
PREFIX ?= /usr/local

.PHONY: demo test bench build release install clean deb deb-check

demo:
	scripts/demo.sh

test:
	scripts/test.sh

bench:
	bench/run

build:
	swift build

HELPERS = git-credential-keychainfs docker-credential-keychainfs

release:
	swift build -c release --static-swift-stdlib --product keychainfs
	for helper in $(HELPERS); do swift build -c release --static-swift-stdlib --product $$helper || exit 1; done

install: release
	install -D -m 0755 .build/release/keychainfs $(DESTDIR)$(PREFIX)/bin/keychainfs
	for helper in $(HELPERS); do install -D -m 0755 .build/release/$$helper $(DESTDIR)$(PREFIX)/bin/$$helper || exit 1; done
	install -D -m 0755 mount-helpers/with-keychain $(DESTDIR)$(PREFIX)/bin/with-keychain
	install -D -m 0755 mount-helpers/mount.fuse.keychainfs $(DESTDIR)/sbin/mount.fuse.keychainfs
	ln -sf mount.fuse.keychainfs $(DESTDIR)/sbin/mount.keychainfs
	install -D -m 0644 mount-helpers/keychainfs@.service $(DESTDIR)$(PREFIX)/lib/systemd/user/keychainfs@.service
	install -D -m 0644 README.md $(DESTDIR)$(PREFIX)/share/doc/keychainfs/README.md

# A .deb (scripts/make-deb.sh); deb-check installs it for real with dpkg -i and removes it (root; CI). Not
# part of `make test`: the static release build takes several minutes.
deb: release
	scripts/make-deb.sh

deb-check: deb
	scripts/deb-check.sh

clean:
	rm -rf .build dist
