import Foundation
import Testing
import KeychainFSTestSupport

/// Names equal as Swift Strings but not as bytes are different items, and every listing shows both
/// (the class directory once listed one of two canonically equivalent services).
@Suite struct CanonicalEquivalenceTests {
    let m: MountedVault
    init() throws { m = try MountedVault() }

    static let composed = "caf\u{E9}"  // NFC: 63 61 66 c3 a9
    static let decomposed = "cafe\u{301}"  // NFD: 63 61 66 65 cc 81

    /// Directory entries as raw bytes (Foundation would hand back Strings, which compare equal).
    func entries(_ path: String) -> [[UInt8]] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [[UInt8]] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != [0x2E] && name != [0x2E, 0x2E] { names.append(name) }
        }
        return names.sorted { $0.lexicographicallyPrecedes($1) }
    }

    @Test func equivalentServicesAreBothListedAndRemovedApart() throws {
        #expect(Self.composed == Self.decomposed && Array(Self.composed.utf8) != Array(Self.decomposed.utf8))
        let first = m.makeItem(service: Self.composed, account: "a"),
            second = m.makeItem(service: Self.decomposed, account: "a")
        #expect(FS.write(first + "/value", "nfc") == 0 && FS.write(second + "/value", "nfd") == 0)
        #expect(
            entries(m.path("genp"))
                == [Array(Self.composed.utf8), Array(Self.decomposed.utf8)].sorted { $0.lexicographicallyPrecedes($1) })
        let found = Command.run("/usr/bin/find", [m.path("genp"), "-name", "value"])
        #expect(found.stdout.split(separator: "\n").count == 2, "find visits both: \(found.stdout)")
        #expect(Command.run("/bin/rm", ["-r", m.path("genp/\(Self.decomposed)")]).succeeded)
        #expect(entries(m.path("genp")) == [Array(Self.composed.utf8)])
        #expect(FS.text(first + "/value") == "nfc", "removing one left the other intact")
    }

    @Test func equivalentAccountsAreBothListed() throws {
        let first = m.makeItem(service: "svc", account: Self.composed)
        let second = m.path("genp/svc/\(Self.decomposed)")
        #expect(FS.mkdir(second) == 0, "a different account as bytes")
        #expect(FS.write(first + "/value", "nfc") == 0 && FS.write(second + "/value", "nfd") == 0)
        #expect(entries(m.path("genp/svc")).count == 2)
        #expect(FS.text(second + "/value") == "nfd" && FS.text(first + "/value") == "nfc")
    }
}
