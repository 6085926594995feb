import Foundation
import KeychainFSEngine
import KeychainFSModel
import Testing

/// `Keychain.enumerateAttributes`, the filesystem's listings: what SecItemCopyMatching returns, one item at a
/// time, in chunks that let a device lock in between.
@Suite struct EnumerationTests {
    @Test func listsWhatCopyMatchingFindsAndNeverASecret() throws {
        let v = try TestVault()
        for account in 0..<300 { _ = try v.add(genp("svc", "a\(account)", ["v_Data": data("secret")])) }
        _ = try v.add(genp("other", "b", ["v_Data": data("secret")]))
        var seen: [String] = []
        try v.keychain.enumerateAttributes(["class": "genp", "svce": "svc"], caller: v.caller) {
            attributes, reference in
            #expect(attributes["v_Data"] == nil && !reference.isEmpty)
            seen.append(attributes["acct"]?.stringValue ?? "")
        }
        #expect(seen == (0..<300).map { "a\($0)" }, "every item of the group, in the order they were added")
        var none = 0
        try v.keychain.enumerateAttributes(["class": "genp", "svce": "nothing"], caller: v.caller) { _, _ in none += 1 }
        #expect(none == 0)
        #expect(
            v.status {
                try v.keychain.enumerateAttributes(["class": "genp"], caller: Caller(accessGroups: [])) { _, _ in }
            } != 0)
    }

    /// A lock asked for during a long listing takes effect between two chunks (before chunking, it waited for
    /// the whole listing: half a second for 100,000 items, seconds for a million), and the listing then fails.
    @Test func aDeviceLockDuringAListingIsNotHeldOff() throws {
        let v = try TestVault()
        try v.keychain.setPasscode(Data("1234".utf8))
        for account in 0..<700 { _ = try v.add(genp("svc", "a\(account)", ["pdmn": "ak"])) }
        let locked = DispatchSemaphore(value: 0)
        let keychain = v.keychain
        var seen = 0
        let status = v.status {
            try v.keychain.enumerateAttributes(["class": "genp"], caller: v.caller) { _, _ in
                seen += 1
                if seen == 1 {
                    Thread.detachNewThread {
                        keychain.lockDevice(); locked.signal()
                    }
                }
            }
        }
        #expect(locked.wait(timeout: .now() + 10) == .success, "the lock completed")
        #expect(status == SecStatus.interactionNotAllowed, "the rest of the listing met the lock")
        #expect(seen < 700, "it stopped at a chunk's end (\(seen) of 700)")
    }
}
