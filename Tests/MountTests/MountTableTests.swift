import Foundation
import KeychainFSFuse
import Testing
import KeychainFSTestSupport

/// The one reader of the mount table (/proc/self/mountinfo): fields after the optional ones, escapes undone.
@Suite struct MountTableTests {
    @Test func aLineWithOptionalFieldsAndEscapes() {
        let line: Substring =
            "36 35 0:53 / /tmp/my\\040mount rw,nosuid shared:1 master:2 - fuse.keychainfs /var/a\\134b rw,user_id=0"
        let expected = MountTable.Entry(
            vault: "/var/a\\b", mountpoint: "/tmp/my mount", type: "fuse.keychainfs", device: "0:53")
        #expect(MountTable.parse(line) == expected)
        #expect(MountTable.parse("36 35 0:53 / /m rw - ") == nil, "a cut line is no entry")
        #expect(MountTable.parse("garbage") == nil)
    }

    @Test func aMountIsFoundWithItsVault() throws {
        let m = try MountedVault()
        let entry = try #require(MountTable.entry(mountpoint: m.mount))
        #expect(entry.vault == MountTable.canonical(m.vault) || entry.vault == m.vault)
        #expect(entry.device.hasPrefix("0:"))
        m.unmount()
        #expect(MountTable.entry(mountpoint: m.mount) == nil)
    }
}
